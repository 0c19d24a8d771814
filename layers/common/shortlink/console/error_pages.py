"""The console door's one table of errors to pages: each domain error a console route may raise,
answered with the error page's status and words (an unexpected one: 503, its cause logged)."""

from dataclasses import dataclass, field

from shortlink.errors import ApiKeyNotFound, InvalidLinkOption, LinkNotFound, RateLimited, ShortlinkError
from shortlink.people.errors import (
    InvalidMemberOption,
    InvitationNotValid,
    LastOwner,
    MemberNotFound,
    PasskeysUnavailable,
    RoleNotGrantable,
    SelfRemoval,
)


@dataclass(frozen=True)
class ErrorPage:
    status: int
    message: str
    headers: dict[str, str] = field(default_factory=dict)
    expected: bool = True  # False: the cause must reach the logs


def error_page(error: ShortlinkError) -> ErrorPage:
    """The page that answers `error`."""
    match error:
        case RateLimited():
            wait = str(error.retry_after)
            return ErrorPage(429, f"Too many attempts: wait {wait} s and try again.", {"Retry-After": wait})
        case InvalidLinkOption():
            return ErrorPage(400, str(error))
        case LinkNotFound():
            return ErrorPage(404, "No such link among this key's links.")
        case ApiKeyNotFound():
            return ErrorPage(404, "No such key in this account.")
        case InvalidMemberOption():
            return ErrorPage(422, str(error))
        case InvitationNotValid():
            # Wherever it is taken (the accept form, or the step after a TOTP code or a new password).
            return ErrorPage(404, str(error))
        case RoleNotGrantable():
            return ErrorPage(403, f"Your role cannot manage a member of role {error.role}.")
        case MemberNotFound():
            return ErrorPage(404, "No such member in this workspace.")
        case SelfRemoval():
            return ErrorPage(409, "You cannot remove yourself: leave the workspace from your Workspaces page.")
        case LastOwner():
            return ErrorPage(409, "A workspace keeps at least one owner: make someone else owner first.")
        case PasskeysUnavailable():
            # The console was told of a relying party the pool has not (yet) been given.
            return ErrorPage(409, "The user pool offers no passkeys: ask the stack's operator.")
    return ErrorPage(503, "The store is busy: retry shortly.", expected=False)
