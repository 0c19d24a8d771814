"""The domain commands of a request, for either door (the API's /domains routes, the console's
Domains page): the composition root's claims, links and audit, and what the door gives (the
request's origin and the host it came in on)."""

from datetime import datetime
from urllib.parse import urlsplit

from shortlink.audit.recording import RequestOrigin
from shortlink.commands.domains import DomainCommands
from shortlink.domains.model import hostname
from shortlink.wiring import addresses, audit_recorder, domain_claims, link_repository, short_domains


def domain_commands_of(origin: RequestOrigin, host: str, now: datetime) -> DomainCommands:
    """The domain commands of a request from `origin` that came in on `host`, in its workspace;
    the hosts the stack answers on (its public base, `host`) are no workspace's to claim."""
    own = {hostname(host), urlsplit(addresses().public_base_url).hostname or ""}
    return DomainCommands(
        origin=origin, stack=short_domains(), reserved={name for name in own if name},
        claims=domain_claims(), links=link_repository(), recorder=audit_recorder(), now=now,
    )  # fmt: skip
