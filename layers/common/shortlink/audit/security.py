"""Failed sign-ins and wrong second-factor codes, in the log of each workspace of the account
tried, where its owners and admins read them: never the password or the code tried, and one
entry per workspace, address block (an IPv6 /64) and minute, however many tries it made. Tries
reach this only once the sign-in limits let them (10 per address and per account in 15 minutes),
so a guesser cannot flood the log."""

from datetime import UTC, datetime
from typing import Literal

from shortlink.audit.model import Action, AuditEntry, PersonChange, RecordedActor, Target, aggregated_entry_id
from shortlink.people.model import Membership

Failure = Literal["password", "mfa"]
FAILURE_ACTIONS: dict[Failure, Action] = {"password": "session.sign_in_failed", "mfa": "session.mfa_failed"}


def failure_entries(
    accounts: list[Membership], failure: Failure, block_hash: str, request_id: str, at: datetime
) -> list[AuditEntry]:
    """One entry per workspace of the account tried (`accounts`, its memberships), from the
    address block whose hash is `block_hash`: its id the same all minute (aggregated_entry_id)."""
    action = FAILURE_ACTIONS[failure]
    moment = at.astimezone(UTC).replace(microsecond=at.microsecond // 1000 * 1000)
    return [
        AuditEntry(
            workspace=member.workspace_id,
            at=moment,
            actor=RecordedActor("person", member.subject, member.email),  # the account tried, by whoever
            action=action,
            target=Target("session", member.subject),
            client=block_hash,
            request_id=request_id,
            id=aggregated_entry_id(moment, f"{member.workspace_id}|{member.subject}|{action}|{block_hash}"),
            person=PersonChange(member.email),
        )
        for member in accounts
    ]
