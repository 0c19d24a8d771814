"""The workspace's members and invitations: listed, invited, given another role and removed, by
owners and admins (the members scopes; a member manages only roles whose scopes they hold),
through the team commands the API runs too (shortlink.commands.team). Remove and Revoke ask
first: without JavaScript, a confirmation page whose button posts; with it, the browser's own
dialog on the Members page."""

from typing import Any

from aws_lambda_powertools import Logger
from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from shortlink.access.api_keys import MEMBERS_READ, MEMBERS_WRITE
from shortlink.commands.team import InvitationMade, TeamCommands
from shortlink.console import audit, forms
from shortlink.console.pages import see_other
from shortlink.console.plumbing import browser_host, confirm_first, now, posted_by_session, requiring, resolver, shown
from shortlink.console.sessions import LOOPBACK_HOSTS, Session
from shortlink.people.actors import Actor
from shortlink.people.errors import InvalidMemberOption, RoleNotGrantable
from shortlink.people.model import ROLES
from shortlink.people.roles import ROLE_MEANINGS, may_manage
from shortlink.wiring import addresses, audit_recorder, team_stores

PATH = "/console/members"

logger = Logger()
router = APIGatewayHttpRouter()  # type: ignore[no-untyped-call]  # Powertools leaves it untyped


def team(actor: Actor) -> TeamCommands:
    """The team commands of this console request."""
    return TeamCommands(team_stores(), actor, audit.origin(actor), audit_recorder(), now())


def members_page(
    actor: Actor, current: Session, state: forms.FormState, status: int = 200, made: InvitationMade | None = None
) -> Response[Any]:
    commands = team(actor)
    return shown(
        "members.html", actor, current, status, form=state, made=made,
        members=commands.members(), pending=commands.pending(),
        roles=[(role, ROLE_MEANINGS[role], may_manage(actor.scopes, role)) for role in ROLES],
    )  # fmt: skip


def console_url(path: str) -> str:
    """An absolute URL of a console page: on the host the browser sent this request to, else
    the stack's public base URL (behind an edge of one domain, which names no host)."""
    host = browser_host()
    if not host:
        base = addresses().public_base_url or f"https://{resolver().current_event.request_context.domain_name}"
        return f"{base}{path}"
    scheme = "http" if host.split(":")[0] in LOOPBACK_HOSTS else "https"
    return f"{scheme}://{host}{path}"


def invitation_url(token: str) -> str:
    return console_url(f"/console/invitations/{token}")


@router.get(PATH)
def members() -> Response[Any]:
    current, actor = requiring(MEMBERS_READ)
    return members_page(actor, current, forms.FormState())


@router.post(f"{PATH}/invite")
def invite_member() -> Response[Any]:
    form, current, actor = posted_by_session(MEMBERS_READ, MEMBERS_WRITE)
    try:
        made = team(actor).invite(forms.value(form, "email"), forms.value(form, "role"), invitation_url)
    except InvalidMemberOption as error:
        return members_page(actor, current, forms.FormState(form, {error.field: str(error)}), 422)
    except RoleNotGrantable as error:
        message = f"role: you cannot invite a member of role {error.role}"
        return members_page(actor, current, forms.FormState(form, {"role": message}), 403)
    logger.info("member invited", extra={"by": actor.id, "invitation_id": made.invitation.invitation_id})
    # Not sent (no sender, or an address Cognito has an account for): the inviter passes the
    # link on, shown this once, as a new key is.
    return members_page(actor, current, forms.FormState(), 201, made)


@router.post(f"{PATH}/invitations/<invitation_id>/resend")
def resend_invitation(invitation_id: str) -> Response[Any]:
    _, current, actor = posted_by_session(MEMBERS_READ, MEMBERS_WRITE)
    made = team(actor).resend(invitation_id, invitation_url)
    logger.info("invitation resent", extra={"by": actor.id, "invitation_id": made.invitation.invitation_id})
    return members_page(actor, current, forms.FormState(), 201, made)


@router.post(f"{PATH}/invitations/<invitation_id>/revoke")
def revoke_invitation(invitation_id: str) -> Response[Any]:
    form, current, actor = posted_by_session(MEMBERS_READ, MEMBERS_WRITE)
    commands = team(actor)
    found = commands.revocable(invitation_id)
    question = f"Revoke the invitation of {found.email} (as {found.role})? Its link will take no one."
    if (asking := confirm_first(form, actor, current, question, "Revoke", PATH)) is not None:
        return asking
    revoked = commands.revoke_invitation(invitation_id)
    logger.info("invitation revoked", extra={"by": actor.id, "invitation_id": revoked.invitation_id})
    return see_other(PATH)


@router.post(f"{PATH}/<subject>/remove")
def remove(subject: str) -> Response[Any]:
    form, current, actor = posted_by_session(MEMBERS_READ, MEMBERS_WRITE)
    commands = team(actor)
    found = commands.removable(subject)
    question = f"Remove {found.email} ({found.role})? Their sessions here and the keys that act for them end."
    if (asking := confirm_first(form, actor, current, question, "Remove", PATH)) is not None:
        return asking
    removed = commands.remove(subject)
    logger.info("member removed", extra={"by": actor.id, "subject": removed.subject, "role": removed.role})
    return see_other(PATH)


@router.post(f"{PATH}/<subject>/role")
def set_role(subject: str) -> Response[Any]:
    form, _, actor = posted_by_session(MEMBERS_READ, MEMBERS_WRITE)
    changed = team(actor).change_role(subject, forms.value(form, "role"))
    logger.info("member role changed", extra={"by": actor.id, "subject": subject, "role": changed.role})
    return see_other(PATH)
