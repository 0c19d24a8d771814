"""The workspace's members and invitations: listed, invited, given another role and removed, by
owners and admins (the admin scope; a member manages only roles whose scopes they hold)."""

from typing import Any

from aws_lambda_powertools import Logger
from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from shortlink.access.api_keys import ADMIN
from shortlink.console import audit, forms
from shortlink.console.pages import see_other
from shortlink.console.plumbing import browser_host, now, posted_by_session, requiring, resolver, shown
from shortlink.console.sessions import LOOPBACK_HOSTS, Session
from shortlink.errors import ShortlinkError
from shortlink.people.actors import Actor
from shortlink.people.errors import InvalidMemberOption, RoleNotGrantable
from shortlink.people.invitations import invite, revoke
from shortlink.people.members import change_role, checked_role
from shortlink.people.model import ROLES
from shortlink.people.offboarding import remove_with_keys
from shortlink.people.roles import ROLE_MEANINGS, may_manage
from shortlink.wiring import addresses, api_key_store, invitation_messages, invitations, memberships

logger = Logger()
router = APIGatewayHttpRouter()  # type: ignore[no-untyped-call]  # Powertools leaves it untyped


def members_page(
    actor: Actor, current: Session, state: forms.FormState, status: int = 200, invited: str = "", link: str = ""
) -> Response[Any]:
    return shown(
        "members.html", actor, current, status, form=state, invited=invited, link=link,
        members=memberships().members_of(actor.workspace_id),
        pending=invitations().pending_for(actor.workspace_id),
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


@router.get("/console/members")
def members() -> Response[Any]:
    current, actor = requiring(ADMIN)
    return members_page(actor, current, forms.FormState())


@router.post("/console/members/invite")
def invite_member() -> Response[Any]:
    form, current, actor = posted_by_session(ADMIN)
    try:
        role = checked_role(forms.value(form, "role"))
        invitation, token = invite(
            invitations(), actor.scopes, actor.label, actor.workspace_id, forms.value(form, "email"), role, now()
        )
    except InvalidMemberOption as error:
        return members_page(actor, current, forms.FormState(form, {error.field: str(error)}), 422)
    except RoleNotGrantable as error:
        message = f"role: you cannot invite a member of role {error.role}"
        return members_page(actor, current, forms.FormState(form, {"role": message}), 403)
    link = console_url(f"/console/invitations/{token}")
    try:
        sent = any(messages.send(invitation, link) for messages in invitation_messages())  # each way in turn
    except ShortlinkError:
        invitations().revoke(actor.workspace_id, invitation.invitation_id, now())  # no one was told of it
        raise
    audit.record(actor, "member.invited", invitation.invitation_id)  # its public id: never the token
    logger.info("member invited", extra={"by": actor.id, "invitation_id": invitation.invitation_id, "role": role})
    # Not emailed (no sender, or an address Cognito has an account for): the inviter passes the
    # link on, shown this once, as a new key is.
    return members_page(actor, current, forms.FormState(), 201, invited=invitation.email, link="" if sent else link)


@router.post("/console/members/invitations/<invitation_id>/revoke")
def revoke_invitation(invitation_id: str) -> Response[Any]:
    _, _, actor = posted_by_session(ADMIN)
    revoked = revoke(invitations(), actor.scopes, actor.workspace_id, invitation_id, now())
    audit.record(actor, "member.invitation_revoked", revoked.invitation_id)
    logger.info("invitation revoked", extra={"by": actor.id, "invitation_id": revoked.invitation_id})
    return see_other("/console/members")


@router.post("/console/members/<subject>/remove")
def remove(subject: str) -> Response[Any]:
    _, _, actor = posted_by_session(ADMIN)
    removal = remove_with_keys(memberships(), api_key_store(), actor.scopes, actor.workspace_id, subject, now())
    removed = removal.membership
    audit.record(actor, "member.removed", removed.subject)
    for key_id in removal.revoked_keys:  # the keys that acted for them end with the membership
        audit.record(actor, "key.revoked", key_id)
    logger.info(
        "member removed",
        extra={"by": actor.id, "subject": removed.subject, "role": removed.role, "keys": removal.revoked_keys},
    )
    return see_other("/console/members")


@router.post("/console/members/<subject>/role")
def set_role(subject: str) -> Response[Any]:
    form, _, actor = posted_by_session(ADMIN)
    role = checked_role(forms.value(form, "role"))
    change_role(memberships(), actor.scopes, actor.workspace_id, subject, role)
    audit.record(actor, "member.role_changed", subject, ("role",))
    logger.info("member role changed", extra={"by": actor.id, "subject": subject, "role": role})
    return see_other("/console/members")
