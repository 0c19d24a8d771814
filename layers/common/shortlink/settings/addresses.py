"""Where short links live and which destinations a link may not have."""

from dataclasses import dataclass

from shortlink.settings.environment import EnvironmentModel, names, text, variable


@dataclass(frozen=True)
class AddressSettings(EnvironmentModel):
    # Public base of short URLs; empty means "the domain the request came in on".
    public_base_url: str = variable("PUBLIC_BASE_URL", "", lambda raw: raw.rstrip("/"))
    # Destination domains refused at create (each covers its subdomains).
    blocked_domains: frozenset[str] = names("BLOCKED_DOMAINS")
    # The SSM parameter holding this stack's other hosts (a link to one loops) besides
    # PUBLIC_BASE_URL's and the request's: its execute-api and edge domains, which the functions
    # cannot reference (see OwnHostsParameter in template.yaml).
    own_hosts_parameter: str = text("OWN_HOSTS_PARAMETER")
