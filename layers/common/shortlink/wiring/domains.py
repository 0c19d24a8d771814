"""Workspaces' own domains: their claims (home region's API keys table) and the DNS they are
verified by."""

from typing import TYPE_CHECKING

from shortlink.settings.dns import DnsSettings
from shortlink.wiring.environment import regions, resources, settings_of, short_domains
from shortlink.wiring.factories import factory

if TYPE_CHECKING:
    from shortlink.adapters.dns.txt_records import DnsTxtRecords
    from shortlink.adapters.dynamodb.domain_claims import DynamoDomainClaims
    from shortlink.domains.served import ServedWorkspaceDomains
    from shortlink.domains.workspace_domains import LinkDomains


@factory
def domain_claims() -> "DynamoDomainClaims":
    """Which workspace holds each domain, beside the workspaces' other items (home region)."""
    from shortlink.adapters.dynamodb.domain_claims import DynamoDomainClaims

    return DynamoDomainClaims(resources().api_keys_table.value, regions().home_region_name)


@factory
def txt_records() -> "DnsTxtRecords":
    """DNS's TXT records, through the resolver the settings name (else the system's)."""
    from shortlink.adapters.dns.txt_records import DnsTxtRecords

    return DnsTxtRecords(settings_of(DnsSettings))


def link_domains(workspace: str) -> "LinkDomains":
    """The domains `workspace`'s links may be on: the stack's and its own verified ones (the
    claims read only for a name that is none of the stack's)."""
    from shortlink.domains.workspace_domains import LinkDomains

    return LinkDomains(short_domains(), workspace, domain_claims())


@factory
def domain_claims_here() -> "DynamoDomainClaims":
    """The claims as this region's replica holds them, for reads that only inform: a link made
    away from home while home is out of reach must not fail on them (claims change at home)."""
    from shortlink.adapters.dynamodb.domain_claims import DynamoDomainClaims

    return DynamoDomainClaims(resources().api_keys_table.value, regions().region_name)


def served_workspace_domains() -> "ServedWorkspaceDomains":
    """Which hosts are workspaces' verified domains (a link to one loops), for one request: the
    claims read in this region on the first host asked about, each host once."""
    from shortlink.domains.served import ServedWorkspaceDomains

    return ServedWorkspaceDomains(short_domains(), domain_claims_here)
