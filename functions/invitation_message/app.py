"""Amazon Cognito's custom message trigger of the people's user pool: the invitation email.

The console creates the invited person's account (AdminCreateUser) with the invitation in its
ClientMetadata; Cognito then asks this function for the message and sends it, with the account's
temporary password put where the placeholder is. Every other message is left as Cognito writes it.
Standard library only: it runs on every message the pool sends, so it stays small and quick."""

from html import escape
from typing import Any
from urllib.parse import urlsplit

INVITATION = "CustomMessage_AdminCreateUser"
SUBJECT = "You are invited to a Shortlink workspace"
LOOPBACK_HOSTS = {"localhost", "127.0.0.1", "::1"}  # the console's own http address in `make dev`
MAX_VALUE_CHARS = 300  # a message must stay within Cognito's 20,000 characters
MAX_LINK_CHARS = 2048


def safe_link(link: str) -> str:
    """The invitation link if it is an https URL (or http on the loopback), else empty."""
    if not 0 < len(link) <= MAX_LINK_CHARS or not link.isprintable() or any(c.isspace() for c in link):
        return ""
    try:
        parts = urlsplit(link)
        host = parts.hostname or ""
    except ValueError:
        return ""
    if "@" in parts.netloc or not host:
        return ""
    if parts.scheme == "https" or (parts.scheme == "http" and host in LOOPBACK_HOSTS):
        return link
    return ""


def shown(metadata: dict[str, Any], name: str, default: str) -> str:
    """A value of the invitation, HTML-escaped and cut to a sane length."""
    value = metadata.get(name)
    return escape(value[:MAX_VALUE_CHARS] if isinstance(value, str) and value else default)


def invitation_email(metadata: dict[str, Any], username: str, code: str) -> str:
    """The message's HTML: who invites to which workspace as what, the link, and the account's
    user name and temporary password (Cognito's placeholders, which it fills in)."""
    link = safe_link(str(metadata.get("link", "")))
    lines = [
        f"<p>{shown(metadata, 'inviter', 'A member')} invites you to the Shortlink workspace "
        f"<strong>{shown(metadata, 'workspace', 'of your team')}</strong> as "
        f"<strong>{shown(metadata, 'role', 'a member')}</strong>.</p>",
    ]
    if link:
        lines.append(f'<p>Open the invitation: <a href="{escape(link)}">{escape(link)}</a></p>')
    lines += [
        f"<p>Sign in there with your email address and this temporary password: <strong>{code}</strong><br>"
        f"(your account: {username}). You then choose a password of your own, and join.</p>",
        f"<p>The invitation works once, until {shown(metadata, 'expires', 'its expiry')} UTC.</p>",
    ]
    return "\n".join(lines)


def handler(event: dict[str, Any], context: object) -> dict[str, Any]:
    if event.get("triggerSource") != INVITATION:
        return event
    request = event.get("request") or {}
    metadata = request.get("clientMetadata") or {}
    if not isinstance(metadata, dict) or "link" not in metadata:
        return event  # an account made elsewhere than by an invitation: Cognito's own message
    username = str(request.get("usernameParameter") or "{username}")
    code = str(request.get("codeParameter") or "{####}")
    response = event.get("response") or {}
    event["response"] = response
    response["emailSubject"] = SUBJECT
    response["emailMessage"] = invitation_email(metadata, username, code)
    return event
