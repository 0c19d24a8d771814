"""A workspace's own short domains: claimed by one workspace at a time (a conditional put on the
name decides), verified by a TXT record holding the claim's token, then usable for its links
beside the stack's domains. A link on one is keyed `<name>/<code>` as on the stack's other
domains, so the redirect serves it by that key alone: only a workspace that held the verified
claim could have written a link under it."""

from dataclasses import dataclass
from datetime import datetime

from shortlink.domains.claims import WorkspaceDomain
from shortlink.domains.errors import DomainNotFound, DomainNotVerified
from shortlink.domains.model import ShortDomains
from shortlink.domains.names import workspace_domain_name
from shortlink.domains.ports import DomainClaims, TxtRecords
from shortlink.errors import InvalidLinkOption

MAX_DOMAINS_PER_WORKSPACE = 20


def own_domain(claims: DomainClaims, workspace: str, name: str) -> WorkspaceDomain:
    """The workspace's claim on `name`; DomainNotFound when another holds it or none does."""
    claim = claims.claim_of(name)
    if claim is None or claim.workspace != workspace:
        raise DomainNotFound(name)
    return claim


def verified_domain(
    claims: DomainClaims, records: TxtRecords, workspace: str, name: str, now: datetime
) -> WorkspaceDomain:
    """The workspace's claim on `name`, verified now if its TXT record holds the token (verified
    once, it stays so); DomainNotVerified naming the record otherwise."""
    claim = own_domain(claims, workspace, name)
    if claim.verified:
        return claim
    found = records.texts_at(claim.record_name)
    if claim.record_value not in found:
        raise DomainNotVerified(
            f"domain {name}: no TXT record at {claim.record_name} holds {claim.record_value} "
            f"({len(found)} TXT value{'s' if len(found) != 1 else ''} found); publish it and verify again"
        )
    return claims.mark_verified(name, workspace, now)


@dataclass(frozen=True)
class LinkDomains:
    """The domains a workspace's links may be on: the stack's, and the workspace's own once
    verified. The claims are read only for a name that is none of the stack's."""

    stack: ShortDomains
    workspace: str
    claims: DomainClaims

    def domain_named(self, name: str | None) -> str:
        """The domain a request's `domain` names ("" the default); InvalidLinkOption for one the
        workspace may not use."""
        try:
            return self.stack.domain_named(name)
        except InvalidLinkOption as refused:
            assert name is not None  # the default domain is always the stack's
            wanted = _readable(name)
            # A stack without Domains serves every host as its default: no workspace domain there.
            claim = self.claims.claim_of(wanted) if wanted and self.stack.names else None
            if claim is not None and claim.workspace == self.workspace and claim.verified:
                return claim.name
            raise InvalidLinkOption("domain", f"{refused}, or a verified domain of this workspace") from None

    def names(self) -> tuple[str, ...]:
        """Every domain the workspace's links may be on, the stack's first (its default leading),
        then its own verified ones by name: what the console offers to create, filter and move to."""
        if not self.stack.names:  # every host is the default's: no workspace domain there
            return ()
        own = sorted(claim.name for claim in self.claims.of_workspace(self.workspace) if claim.verified)
        return (*self.stack.names, *own)


def _readable(name: str) -> str | None:
    """`name` as a workspace's domain is kept (punycode, lower case, ...); None if it cannot be one."""
    try:
        return workspace_domain_name(name, ())
    except InvalidLinkOption:
        return None
