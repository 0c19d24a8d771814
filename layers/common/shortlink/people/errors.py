"""What people and workspace operations refuse (the console and the API answer each with a 4xx)."""

from shortlink.errors import ShortlinkError


class RoleNotGrantable(ShortlinkError):
    """The caller may not invite, add, change or remove a member of this role."""

    def __init__(self, role: str, scope: str = "members:write") -> None:
        super().__init__(f"managing a member of role {role} needs that role's scopes and members:write")
        self.role = role
        self.scope = scope  # the first one the caller lacks


class InvalidMemberOption(ShortlinkError):
    """An email or role that cannot be accepted; names the field."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


class InvalidWorkspaceSetting(ShortlinkError):
    """A workspace setting that cannot be accepted; names the field."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


class MemberNotFound(ShortlinkError):
    """No such member (or invitation) in this workspace."""


class MemberRemoved(ShortlinkError):
    """The person was removed from this workspace: only a new invitation lets them in again."""

    def __init__(self, workspace_id: str) -> None:
        super().__init__("you were removed from this workspace; ask an owner to invite you again")
        self.workspace_id = workspace_id


class LastOwner(ShortlinkError):
    """The change would leave the workspace without an owner."""


class SelfRemoval(ShortlinkError):
    """A member asked to remove themself: that is leaving (their Workspaces page), not a removal."""

    def __init__(self) -> None:
        super().__init__("you cannot remove yourself: leave the workspace from your Workspaces page")


class InvitationNotValid(ShortlinkError):
    """The invitation link is unknown, used already, or expired."""


class InvitationForAnother(InvitationNotValid):
    """The invitation names another address than the person accepting it has: only the invited
    address may accept (a link passed on, or another account's password, joins nobody)."""

    def __init__(self, invited: str) -> None:
        super().__init__(f"this invitation is for {invited}: sign in as that person to accept it")
        self.invited = invited


class SignInRefused(ShortlinkError):
    """The pool refused the email, password or code (one message for all: nothing to enumerate)."""


class WrongCode(SignInRefused):
    """The pool refused a TOTP code but keeps the sign-in open: the person may enter another."""


class WeakPassword(ShortlinkError):
    """The pool's password policy refused the new password (its message says why)."""


class PasskeyRefused(ShortlinkError):
    """The pool did not accept a passkey (its registration or its removal): the reason says why."""


class PasskeysUnavailable(ShortlinkError):
    """The pool offers no passkeys (no relying party, or not the Essentials tier)."""
