"""Which hosts are workspaces' verified domains: this stack serves them, so a link to one loops
(shortlink.web.urls refuses it). Asked by the create and edit paths, never by the redirect."""

from collections.abc import Callable

from shortlink.domains.model import ShortDomains
from shortlink.domains.names import MAX_DOMAIN_CHARS
from shortlink.domains.ports import DomainClaims


class ServedWorkspaceDomains:
    """Whether a destination's host (canonical: shortlink.web.urls.host_key) is a workspace's
    verified domain: one claim read per host, kept for the request (a bulk create's links to one
    site read it once); none for a host no claim can name (an address, a name too long), nor on
    a stack without Domains, which serves no workspace's domain. An unverified claim is not
    served: it must not let anyone who claims a name refuse every link to it."""

    def __init__(self, stack: ShortDomains, claims: Callable[[], DomainClaims]) -> None:
        self._stack = stack
        self._claims = claims  # built on the first host asked about
        self._served: dict[str, bool] = {}

    def __call__(self, host: str) -> bool:
        if not self._stack.names or not _may_be_claimed(host):
            return False
        served = self._served.get(host)
        if served is None:
            claim = self._claims().claim_of(host)
            served = self._served[host] = claim is not None and claim.verified
        return served


def _may_be_claimed(host: str) -> bool:
    # IPv6 hosts hold ':'; a host whose last label is all digits is an IPv4 address (WHATWG).
    return ":" not in host and not host.rpartition(".")[2].isdigit() and len(host) <= MAX_DOMAIN_CHARS
