"""The unlock of a password-protected link: its form (shortlink.redirect.unlock_page) until the
right password is posted, each attempt counted per link and client address before the password
is checked (shortlink.access.rate_limits). Loaded only when a link has a password."""

from datetime import UTC, datetime
from typing import Any

from shortlink.access.passwords import MAX_LENGTH, password_matches
from shortlink.access.rate_limits import take_unlock_attempt
from shortlink.errors import RateLimited, StorageUnavailable
from shortlink.links.model import Link
from shortlink.redirect.outcomes import TOO_LARGE, WRONG_METHOD
from shortlink.redirect.refusals import unavailable
from shortlink.redirect.request import RedirectRequest
from shortlink.redirect.services import RedirectServices
from shortlink.redirect.unlock_page import HEADERS, unlock_form


def unlock(services: RedirectServices, request: RedirectRequest, link: Link) -> dict[str, Any] | None:
    """None once the visitor sent the right password; otherwise the page to answer with: the
    form on GET, the form with an error on a wrong or missing password, 429 past the attempts
    allowed per link and client address."""
    method = request.method
    code = link.code
    if method in ("GET", "HEAD"):
        return form(code, 200, None)
    if method != "POST":
        return WRONG_METHOD.page({"Allow": "GET, HEAD, POST"})
    fields = request.form
    if fields is None:
        return TOO_LARGE.page()
    password = fields.get("password", "")
    if not password:
        return form(code, 400, "Enter the password.")
    client = str(request.client_ip or "unknown")
    limit = services.unlock_attempts_per_window
    try:
        take_unlock_attempt(link.key, client, limit, datetime.now(UTC), services.attempt_log())
    except RateLimited as limited:
        services.dispatcher.count("UnlockThrottled")
        minutes = -(-limited.retry_after // 60)
        message = f"Too many attempts. Try again in {minutes} minute{'s' if minutes > 1 else ''}."
        return form(code, 429, message, {"Retry-After": str(limited.retry_after)})
    except StorageUnavailable:
        return unavailable(services, "unlock attempt not counted")
    if not password_matches(password, link.password_hash or ""):
        services.dispatcher.count("UnlockFailures")
        return form(code, 403, "Wrong password. Try again.")
    return None


def form(code: str, status: int, error: str | None, extra_headers: dict[str, str] | None = None) -> dict[str, Any]:
    """The unlock form of the link `code`, with `error` above it when there is one."""
    return {
        "statusCode": status,
        "headers": {**HEADERS, **(extra_headers or {})},
        "body": unlock_form(code, error, MAX_LENGTH),
    }
