"""The domain commands: a workspace adds a domain (its claim and the token to publish), verifies
it (its TXT record read through DNS) and removes it (refused while live links use it), each with
one audit entry (`domain.*`, whose `audit.recorded` event reaches the workspace's webhooks). The
console's Domains page and the API's /domains routes both run these."""

from collections.abc import Iterable
from datetime import datetime

from shortlink.audit.model import Action
from shortlink.audit.recording import AuditRecorder, RequestOrigin
from shortlink.domains.claims import WorkspaceDomain, new_domain
from shortlink.domains.errors import DomainInUse
from shortlink.domains.model import ShortDomains
from shortlink.domains.names import workspace_domain_name
from shortlink.domains.ports import DomainClaims, TxtRecords
from shortlink.domains.workspace_domains import MAX_DOMAINS_PER_WORKSPACE, own_domain, verified_domain
from shortlink.errors import InvalidLinkOption
from shortlink.links.ports import LinkRepository

PAGE = 100


class DomainCommands:
    """The domain commands of one request, in the workspace of `origin`. `reserved`: the
    stack's own host names (no workspace claims them or a name under them)."""

    def __init__(
        self,
        *,
        origin: RequestOrigin,
        stack: ShortDomains,
        reserved: Iterable[str],
        claims: DomainClaims,
        links: LinkRepository,
        recorder: AuditRecorder,
        now: datetime,
    ) -> None:
        self._origin = origin
        self._stack = stack
        self._reserved = frozenset({*stack.names, *reserved})
        self._claims = claims
        self._links = links
        self._recorder = recorder
        self._now = now

    @property
    def workspace(self) -> str:
        return self._origin.workspace

    def domains(self) -> list[WorkspaceDomain]:
        """The workspace's domains, by name."""
        return self._claims.of_workspace(self.workspace)

    def add(self, typed: str) -> WorkspaceDomain:
        """Claim the domain `typed` names for the workspace (unverified, with its token);
        DomainTaken when a workspace holds it already."""
        name = workspace_domain_name(typed, self._reserved)
        if not self._stack.names:
            message = "domain: this stack serves no Domains, so it cannot tell a workspace's host from its own"
            raise InvalidLinkOption("domain", message)
        if len(self.domains()) >= MAX_DOMAINS_PER_WORKSPACE:
            raise InvalidLinkOption("domain", f"domain: a workspace has at most {MAX_DOMAINS_PER_WORKSPACE} domains")
        domain = new_domain(name, self.workspace, self._now)
        self._claims.claim(domain)
        self._record("domain.added", name)
        return domain

    def verify(self, typed: str, records: TxtRecords) -> WorkspaceDomain:
        """Verify the workspace's domain by its TXT record (DomainNotVerified naming the record
        when it does not hold the token); verified once, it stays so."""
        name = workspace_domain_name(typed, ())
        domain = verified_domain(self._claims, records, self.workspace, name, self._now)
        if domain.verified_at == self._now:  # verified by this request
            self._record("domain.verified", name)
        return domain

    def remove(self, typed: str) -> None:
        """Release the workspace's claim; DomainInUse while any of its live links are on it."""
        name = workspace_domain_name(typed, ())
        own_domain(self._claims, self.workspace, name)
        live = self._live_links_on(name)
        if live:
            raise DomainInUse(name, live)
        self._claims.release(name, self.workspace)
        self._record("domain.removed", name)

    def _live_links_on(self, name: str) -> int:
        live, cursor = 0, None
        while True:
            page, cursor = self._links.list_for_owner(self.workspace, PAGE, cursor, None, domain=name)
            live += sum(1 for link in page if link.deleted_at is None)
            if cursor is None:
                return live

    def _record(self, action: Action, name: str) -> None:
        self._recorder.record([self._origin.entry(action, name, self._now)])
