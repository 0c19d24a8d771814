"""A signed-in person's console session: started after any sign-in of the user pool (password,
MFA, single sign-on's callback), in the workspace they asked for or their first."""

from typing import Any

from aws_lambda_powertools import Logger
from aws_lambda_powertools.event_handler import Response

from shortlink.console import audit
from shortlink.console.pages import page, see_other, session_cookie
from shortlink.console.plumbing import now
from shortlink.console.sessions import issue_person_session
from shortlink.people.actors import Actor
from shortlink.people.model import Person
from shortlink.wiring import console_session_secret, memberships, person_sessions

logger = Logger()


def start_person_session(person: Person, workspace_id: str | None = None) -> Response[Any]:
    """The answer that signs `person` in to the console: a session cookie (no token of the pool
    in it, nor anywhere the page's scripts reach) and a redirect to their links, in
    `workspace_id` if they belong to it, else their first workspace. A person of no workspace
    gets a page that says so, and no session."""
    joined = memberships().of_person(person.subject)
    chosen = next((each for each in joined if each.workspace_id == workspace_id), joined[0] if joined else None)
    if chosen is None:
        return page("error.html", 403, message="You are not a member of any workspace yet: ask an owner to invite you.")
    generation = person_sessions().session_generation(person.subject)
    _, cookie = issue_person_session(person.subject, chosen.workspace_id, now(), console_session_secret(), generation)
    audit.record(Actor.of_member(chosen), "session.signed_in", person.subject)
    logger.info("console sign-in", extra={"subject": person.subject, "workspace_id": chosen.workspace_id})
    return see_other("/console", [session_cookie(cookie)])
