"""How the API door shows a link: its short URL on its own domain (the request's host where the
stack names no public base), the key of a code a request names, and what its links may point to."""

from collections.abc import Callable
from dataclasses import replace
from functools import cache, lru_cache
from urllib.parse import urlsplit

from shortlink.domains.model import DomainNames, ShortDomains, link_key
from shortlink.errors import StorageUnavailable
from shortlink.links.model import Link
from shortlink.schemas.links import LinkShowing, LinkView
from shortlink.settings.addresses import AddressSettings
from shortlink.settings.environment import comma_list
from shortlink.web.urls import DestinationPolicy


def public_base_url(host: str, addresses: AddressSettings) -> str:
    """Where short links live: the configured base, else the host the request came in on."""
    return addresses.public_base_url or f"https://{host}"


def link_showing(host: str, addresses: AddressSettings, domains: ShortDomains) -> LinkShowing:
    """How the API shows links to a request that came in on `host`."""
    return LinkShowing(public_base_url(host, addresses), domains)


def link_view(host: str, link: Link, addresses: AddressSettings, domains: ShortDomains) -> LinkView:
    """How the API shows `link` to a request that came in on `host`: its short URL and domain
    are its domain's."""
    return link_showing(host, addresses, domains).view(link)


def requested_key(code: str, domain: str | None, domains: DomainNames) -> str:
    """The key of `code` on the domain a request names in `?domain=` (default: the first);
    InvalidLinkOption (422) for a domain the request may not use."""
    return link_key(domains.domain_named(domain), code)


def destination_policy(
    host: str,
    addresses: AddressSettings,
    domains: ShortDomains,
    workspace_domain: Callable[[str], bool] | None = None,
) -> DestinationPolicy:
    """Our own hosts (the public one, every short domain, `host`, the one the request came in
    on, the stack's others) and the blocklist, each in any spelling a browser reads; with
    `workspace_domain`, the workspaces' verified domains too (a link's: a webhook's need not)."""
    own = {
        urlsplit(public_base_url(host, addresses)).netloc,
        *domains.names,
        host,
        *stack_own_hosts(addresses.own_hosts_parameter),
    }
    policy = _policy(frozenset(host for host in own if host), addresses.blocked_domains)
    return policy if workspace_domain is None else replace(policy, workspace_domain=workspace_domain)


# The same few hosts come with every request: parse them once (a bulk create checks 100 URLs).
_policy = lru_cache(maxsize=16)(DestinationPolicy.of)


@cache
def stack_own_hosts(parameter: str) -> frozenset[str]:
    """The hosts the stack wrote to SSM `parameter` (none without one): they never change for a
    stack, so each execution environment reads them once."""
    if not parameter:
        return frozenset()
    from aws_lambda_powertools.utilities.parameters import get_parameter
    from aws_lambda_powertools.utilities.parameters.exceptions import GetParameterError

    try:
        hosts = get_parameter(parameter, force_fetch=True)  # held by @cache, not by Powertools
    except GetParameterError as error:  # throttled, or not written yet while the stack deploys
        raise StorageUnavailable(f"own hosts not readable: {error}") from error
    return comma_list(hosts)
