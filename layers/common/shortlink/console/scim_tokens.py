"""The workspace's SCIM tokens, which only its owners make and revoke: listed (never the token),
made (its clear text on this page once), revoked at once; each in the audit log."""

from typing import Any

from aws_lambda_powertools import Logger
from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from shortlink.console import audit
from shortlink.console.pages import see_other
from shortlink.console.plumbing import Refused, browser_host, host, now, posted_by_session, requiring, shown
from shortlink.console.sessions import Session
from shortlink.people.actors import Actor
from shortlink.people.roles import OWNERSHIP
from shortlink.scim.tokens import issue_token
from shortlink.wiring import scim_tokens

PATH = "/console/workspace/scim"

logger = Logger()
router = APIGatewayHttpRouter()  # type: ignore[no-untyped-call]  # Powertools leaves it untyped


def tokens_page(actor: Actor, current: Session, status: int = 200, created: str = "") -> Response[Any]:
    tokens = scim_tokens().of_workspace(actor.workspace_id)
    base = f"https://{browser_host() or host()}/scim/v2"
    return shown("scim.html", actor, current, status, tokens=tokens, created=created, base=base)


@router.get(PATH)
def scim_page() -> Response[Any]:
    current, actor = requiring(OWNERSHIP)
    return tokens_page(actor, current)


@router.post(PATH)
def make_token() -> Response[Any]:
    """A new SCIM token of the workspace; its clear text is on this page only."""
    _, current, actor = posted_by_session(OWNERSHIP)
    token, plaintext = issue_token(scim_tokens(), actor.workspace_id, actor.label, now())
    audit.record(actor, "scim.token_created", token.token_id)
    logger.info("SCIM token made", extra={"token_id": token.token_id, "workspace_id": actor.workspace_id})
    return tokens_page(actor, current, 201, plaintext)


@router.post(f"{PATH}/<token_id>/revoke")
def revoke_token(token_id: str) -> Response[Any]:
    _, _, actor = posted_by_session(OWNERSHIP)
    if len(token_id) != 12 or not scim_tokens().revoke(actor.workspace_id, token_id):
        raise Refused(404, "No such SCIM token in this workspace.")
    audit.record(actor, "scim.token_revoked", token_id)
    logger.info("SCIM token revoked", extra={"token_id": token_id, "workspace_id": actor.workspace_id})
    return see_other(PATH)
