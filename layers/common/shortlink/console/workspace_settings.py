"""The workspace's own settings (its name), which only its owners change; the change is in the
audit log as `setting.changed` (the setting's name, never its value)."""

from typing import Any

from aws_lambda_powertools import Logger
from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from shortlink.console import forms
from shortlink.console.members import team
from shortlink.console.pages import see_other
from shortlink.console.plumbing import posted_by_session, requiring, shown
from shortlink.console.sessions import Session
from shortlink.people.actors import Actor
from shortlink.people.errors import InvalidWorkspaceSetting
from shortlink.people.roles import OWNERSHIP
from shortlink.people.workspaces import MAX_NAME_CHARS
from shortlink.wiring import workspace_names

PATH = "/console/workspace/settings"

logger = Logger()
router = APIGatewayHttpRouter()  # type: ignore[no-untyped-call]  # Powertools leaves it untyped


def settings_page(actor: Actor, current: Session, state: forms.FormState, status: int = 200) -> Response[Any]:
    if not state.values:  # the name it has
        name = workspace_names().names_of([actor.workspace_id]).get(actor.workspace_id, "")
        state = forms.FormState({"name": [name]})
    return shown("workspace_settings.html", actor, current, status, form=state, limit=MAX_NAME_CHARS)


@router.get(PATH)
def workspace_settings() -> Response[Any]:
    current, actor = requiring(OWNERSHIP)
    return settings_page(actor, current, forms.FormState())


@router.post(PATH)
def change_workspace_settings() -> Response[Any]:
    form, current, actor = posted_by_session(OWNERSHIP)
    try:
        team(actor).rename(forms.value(form, "name"))
    except InvalidWorkspaceSetting as error:
        return settings_page(actor, current, forms.FormState(form, {error.field: str(error)}), 422)
    logger.info("workspace renamed", extra={"by": actor.id, "workspace_id": actor.workspace_id})
    return see_other(PATH)
