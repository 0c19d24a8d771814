"""A person's workspaces in the console: the list to switch between (switching and leaving:
shortlink.console.people_sign_in) and the form that makes a new one. Any signed-in person may
make a workspace, as POST /workspaces lets a person's access token: they become its owner, its
first audit entry (`workspace.created`) is theirs, and their session moves to it."""

from typing import Any

from aws_lambda_powertools import Logger
from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from shortlink.commands.team import create_workspace
from shortlink.console import audit, forms
from shortlink.console.pages import see_other, session_cookie
from shortlink.console.plumbing import Refused, now, posted_by_session, requiring, shown
from shortlink.console.sessions import Session, issue_person_session
from shortlink.people.actors import Actor
from shortlink.people.errors import InvalidWorkspaceSetting
from shortlink.people.model import Person
from shortlink.people.workspaces import MAX_NAME_CHARS
from shortlink.wiring import audit_recorder, console_session_secret, memberships, team_stores, workspace_names

PATH = "/console/workspaces"

logger = Logger()
router = APIGatewayHttpRouter()  # type: ignore[no-untyped-call]  # Powertools leaves it untyped


def a_persons(current: Session) -> None:
    """Refuse a key's session: an API key belongs to its one workspace."""
    if not current.is_person:
        raise Refused(400, "an API key works in its own workspace only")


def workspaces_page(actor: Actor, current: Session, state: forms.FormState, status: int = 200) -> Response[Any]:
    joined = memberships().of_person(current.subject)
    names = workspace_names().names_of([each.workspace_id for each in joined])
    return shown(
        "workspaces.html", actor, current, status, workspaces=joined, names=names, form=state, limit=MAX_NAME_CHARS
    )


@router.get(PATH)
def workspaces() -> Response[Any]:
    """A person's workspaces, with their role in each, to switch between, and a new one's form."""
    current, actor = requiring()
    a_persons(current)
    return workspaces_page(actor, current, forms.FormState())


@router.post(PATH)
def new_workspace() -> Response[Any]:
    """A new workspace named as posted, the person its owner; the session moves to it."""
    form, current, actor = posted_by_session()
    a_persons(current)
    made_at = now()
    try:
        made, _ = create_workspace(
            team_stores(), Person(current.subject, actor.label), forms.value(form, "name"), made_at, audit.origin,
            audit_recorder(),
        )  # fmt: skip
    except InvalidWorkspaceSetting as error:
        return workspaces_page(actor, current, forms.FormState(form, {error.field: str(error)}), 422)
    secret = console_session_secret()
    _, cookie = issue_person_session(current.subject, made.workspace_id, made_at, secret, current.generation)
    logger.info("workspace created", extra={"by": actor.id, "workspace_id": made.workspace_id})
    return see_other("/console", [session_cookie(cookie)])
