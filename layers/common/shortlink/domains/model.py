"""Short domains: which of the stack's domains a link lives on, and the key it is stored under.

The first domain is the default: its links keep their code as their key, exactly as before
several domains existed, so a single-domain stack's links and codes are untouched. A link of
another domain is keyed `<host>/<code>`: '/' is outside the code alphabet, so no code of the
default domain can equal such a key, and the same code may exist once per domain.
"""

import re
from dataclasses import dataclass, field
from typing import Protocol

from shortlink.errors import InvalidLinkOption

KEY_SEPARATOR = "/"
MAX_NAME_CHARS = 253  # DNS's longest name
# A lower-case host name of two labels or more (as the template's Domains parameter allows),
# optionally with a port (the local stack's 127.0.0.1:3000).
HOST_PATTERN = re.compile(r"([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(:[0-9]{1,5})?")


def hostname(host: str) -> str:
    """`host` without its port and its final dot, lower-case: how a Host header names a domain
    (`sho.rt.`, fully qualified, is the host `sho.rt` to browsers and to HTTP)."""
    return host.rsplit(":", 1)[0].removesuffix(".").lower() if not host.endswith("]") else host.lower()


def link_key(domain: str, code: str) -> str:
    """The key of `code` on `domain` ("" is the default domain)."""
    return f"{domain}{KEY_SEPARATOR}{code}" if domain else code


def split_key(key: str) -> tuple[str, str]:
    """The domain ("" for the default) and the code of a stored key."""
    domain, _, code = key.rpartition(KEY_SEPARATOR)
    return domain, code


class DomainNames(Protocol):
    def domain_named(self, name: str | None) -> str:
        """The domain a request's `domain` field names ("" the default); InvalidLinkOption for
        one the request may not use."""


@dataclass(frozen=True)
class ShortDomains:
    """The stack's short domains, the default first (host names, a port allowed locally). None
    configured: one unnamed domain, on whatever host a request came in on (as before)."""

    hosts: tuple[str, ...] = ()
    names: tuple[str, ...] = field(init=False)  # the hosts without ports: how requests name them
    # Each domain's key prefix by the host exactly as a request names it (with and without a
    # port): the redirect's hit path looks a host up here without parsing it.
    prefixes: dict[str, str] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        names = tuple(hostname(host) for host in self.hosts)
        object.__setattr__(self, "names", names)
        prefixes = {name: f"{name}{KEY_SEPARATOR}" for name in names[1:]}
        prefixes.update({host: f"{hostname(host)}{KEY_SEPARATOR}" for host in self.hosts[1:]})
        if names:
            prefixes.update({names[0]: "", self.hosts[0]: ""})
        object.__setattr__(self, "prefixes", prefixes)

    @classmethod
    def parse(cls, text: str) -> "ShortDomains":
        hosts = tuple(dict.fromkeys(item.strip().lower() for item in text.split(",") if item.strip()))
        for host in hosts:
            if not HOST_PATTERN.fullmatch(host):
                raise ValueError(f"{host!r} is not a host name")
        return cls(hosts)

    @property
    def several(self) -> bool:
        """Whether requests must say which domain they are for: only then does the edge name the
        viewer's host (edge.yaml's EdgeServesSeveralDomains)."""
        return len(self.names) > 1

    def domain_named(self, name: str | None) -> str:
        """The domain a request's `domain` field names: "" for the default (also when left out),
        a host name for another; InvalidLinkOption for one this stack does not serve."""
        if name is None:
            return ""
        wanted = hostname(name)
        names = self.names
        if wanted in names:
            return "" if wanted == names[0] else wanted
        served = ", ".join(names) or "none: this stack has no Domains"
        raise InvalidLinkOption("domain", f"domain must be one of this stack's domains ({served})")

    def public_name(self, domain: str) -> str | None:
        """What the API shows as a link's domain: its host name (None without domains)."""
        return domain or (self.names[0] if self.names else None)

    def base_url(self, domain: str, default_base: str) -> str:
        """Where `domain`'s short links live; `default_base` is the default domain's."""
        if not domain:
            return default_base
        scheme = default_base.split("://", 1)[0] if "://" in default_base else "https"
        # A workspace's own domain (shortlink.domains.workspace_domains) is none of the hosts.
        host = next((host for host in self.hosts if hostname(host) == domain), domain)
        return f"{scheme}://{host}"

    def key_prefix_of_host(self, host: str, own_host: bool) -> str | None:
        """The key prefix of links served on `host` (a trusted request host): "" for the default
        domain, and for the stack's own hosts (`own_host`: execute-api, the edge's); `<name>/` for
        any other host name (a workspace's domain: its links' keys decide, an unknown host's
        lookups miss); None for a host that names no domain."""
        names = self.names
        if not names:
            return ""
        known = self.prefixes.get(host)
        if known is not None:
            return known
        name = hostname(host)
        if name == names[0] or own_host:
            return ""
        if len(name) <= MAX_NAME_CHARS and HOST_PATTERN.fullmatch(name):
            return f"{name}{KEY_SEPARATOR}"
        return None
