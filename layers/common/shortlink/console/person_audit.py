"""A person's security events outside a session (a failed TOTP code or a recovery code used at
sign-in, a password reset): one entry in each workspace they belong to, so that each
workspace's owners and admins read them in its audit log."""

from shortlink.audit.model import Action
from shortlink.console.audit import origin
from shortlink.console.plumbing import now
from shortlink.people.actors import Actor
from shortlink.people.model import Person
from shortlink.wiring import audit_recorder, memberships

MAX_WORKSPACES = 50  # bounds one failure's writes; a person is rarely in more


def record_for_person(person: Person, action: Action) -> None:
    """`action` by `person` on themself, in each of their workspaces (none: nothing recorded)."""
    at = now()
    joined = memberships().of_person(person.subject)[:MAX_WORKSPACES]
    entries = [origin(Actor.of_member(each)).entry(action, person.subject, at) for each in joined]
    if entries:
        audit_recorder().record(entries)
