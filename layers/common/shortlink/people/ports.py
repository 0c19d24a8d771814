"""The stores people and workspaces need (adapters/dynamodb/memberships.py implements them)."""

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, Protocol

from shortlink.people.model import Invitation, Membership, Person, Role


class Memberships(Protocol):
    def of_person(self, subject: str) -> list[Membership]:
        """Every workspace `subject` belongs to, by workspace id."""

    def membership_in(self, workspace_id: str, subject: str, *, fresh: bool = False) -> Membership | None:
        """`subject`'s membership of `workspace_id`, or None if they are no member; `fresh`:
        as the latest change left it (before a write: no removal that has returned is missed)."""

    def role_in(self, workspace_id: str, subject: str) -> Role | None:
        """The role `subject` holds in `workspace_id`, or None if they are no member."""

    def members_of(self, workspace_id: str) -> list[Membership]:
        """The workspace's members, by email."""

    def of_email(self, email: str) -> list[Membership]:
        """Every membership of whoever signs in with `email` (a scan of the small table)."""

    def was_removed(self, workspace_id: str, subject: str) -> bool:
        """Whether `subject` was removed from `workspace_id` and not invited back since."""

    def add(self, membership: Membership, invited_at: datetime | None = None) -> bool:
        """Store `membership` unless the person is a member already or was removed from the
        workspace: False then (nothing changes). `invited_at`: it comes of an invitation made
        then, which replaces (and so clears) a removal made before it, never one made after."""

    def set_role(self, workspace_id: str, subject: str, role: Role) -> bool:
        """Change a member's role; False if they are no member."""

    def remove(self, workspace_id: str, subject: str, removed_at: datetime) -> bool:
        """End the membership and keep the removal (no sign-in makes them a member again, only
        an invitation made later); False if there was no membership."""

    def mark_active(self, workspace_id: str, subject: str, hour: datetime) -> None:
        """Record `hour` as the member's last activity, unless as late a one is recorded."""


class PersonSessions(Protocol):
    def session_generation(self, subject: str) -> int:
        """The person's session generation: a console session signed at another one has ended."""

    def signed_out_at(self, subject: str) -> int:
        """When the person last signed out (Unix seconds; 0: never): the pool's access tokens
        of sign-ins up to then are refused by the API."""

    def end_sessions(self, subject: str, now: datetime | None = None) -> None:
        """Move the person's session generation on and keep `now` (the moment of the call
        without it) as their Sign out: every console session and access token of theirs ends."""


@dataclass(frozen=True)
class PasswordRule:
    """The pool's password policy, as a person choosing a password is told it."""

    minimum_length: int
    upper: bool
    lower: bool
    digit: bool
    symbol: bool

    def __str__(self) -> str:
        wanted = [
            name
            for name, needed in (
                ("an upper-case letter", self.upper),
                ("a lower-case letter", self.lower),
                ("a digit", self.digit),
                ("a symbol", self.symbol),
            )
            if needed
        ]
        return f"At least {self.minimum_length} characters" + (f", with {', '.join(wanted)}." if wanted else ".")


class RecoveryCodeStore(Protocol):
    def replace(self, subject: str, hashes: set[str]) -> None:
        """Keep `hashes` as `subject`'s recovery codes, in place of any before."""

    def spend(self, subject: str, code_hash: str) -> bool:
        """Take `code_hash` out of `subject`'s codes in one conditional write: True if it was
        there (of two spenders, one gets it), False otherwise."""

    def remaining(self, subject: str) -> int:
        """How many of `subject`'s codes are left."""

    def clear(self, subject: str) -> None:
        """Forget `subject`'s codes (TOTP turned off)."""


class Invitations(Protocol):
    def add(self, token_hash: str, invitation: Invitation) -> None:
        """Store an invitation under the hash of its token."""

    def take(self, token_hash: str, now: datetime) -> Invitation | None:
        """The invitation under this hash, spent by this call (one conditional write: of two
        takers, one gets it); None if there is none, it was spent, or it has expired."""

    def find(self, token_hash: str, now: datetime) -> Invitation | None:
        """The invitation under this hash if it is neither spent nor expired (it stays so)."""

    def pending_for(self, workspace_id: str) -> list[Invitation]:
        """The workspace's invitations neither spent nor expired."""

    def revoke(self, workspace_id: str, invitation_id: str, now: datetime) -> Invitation | None:
        """The workspace's pending invitation of this public id, spent by this call so that its
        link no longer works (one conditional write); None if there is no such pending one."""


@dataclass(frozen=True)
class Challenge:
    """What the pool asks before a sign-in completes: a TOTP code, a new password (a person the
    pool made with a temporary one), or a passkey's signature. `session` is the pool's handle of
    the sign-in: kept in a signed HttpOnly cookie for the minutes the answer takes, never in a page."""

    kind: Literal["totp", "new_password", "passkey"]
    email: str
    session: str


@dataclass(frozen=True)
class PasskeyChallenge:
    """A passkey sign-in begun: the pool's handle of it, and the options (WebAuthn's
    PublicKeyCredentialRequestOptions as JSON) the browser's navigator.credentials.get takes."""

    challenge: Challenge
    request_options: str


@dataclass(frozen=True)
class Passkey:
    """One of a person's passkeys as the pool lists it."""

    credential_id: str
    name: str
    created_at: datetime | None


class UserPool(Protocol):
    def person_of(self, access_token: str) -> Person:
        """The person an access token of the pool names (the pool asked: their address too);
        SignInRefused if the pool does not take it."""

    def sign_in(self, email: str, password: str) -> Person | Challenge:
        """The person, once the pool has checked their password, or what it asks next.
        SignInRefused for a wrong email or password (the same for both)."""

    def answer(self, challenge: Challenge, answer: str) -> Person | Challenge:
        """Answer `challenge` (a TOTP code, or the new password)."""

    def sign_up(self, email: str, password: str) -> Person:
        """A new person of the pool with a password of their own, their address taken as
        verified (the invitation link reached it). SignInRefused if the address is taken."""

    def start_totp(self, email: str, password: str) -> str:
        """Begin TOTP for the person (their password asked again): the secret for their app."""

    def confirm_totp(self, email: str, password: str, code: str) -> None:
        """Turn TOTP on with a first code from the app: it is asked at each sign-in from now on."""

    def person_named(self, email: str) -> Person | None:
        """The pool's person of `email`, None if it has none."""

    def totp_on(self, email: str) -> bool:
        """Whether the pool asks `email` a TOTP code at sign-in."""

    def turn_off_totp(self, email: str) -> None:
        """No TOTP code asked of `email` any more (re-authenticated by the caller first)."""

    def request_password_reset(self, email: str) -> None:
        """Send `email` a reset code if it has an account; the same answer if not."""

    def reset_password(self, email: str, code: str, password: str) -> None:
        """A new password with the code sent: SignInRefused for a wrong or spent code and an
        unknown address alike, WeakPassword with the pool's reason."""

    def end_pool_sessions(self, email: str) -> None:
        """End every session the pool keeps for `email` (its refresh tokens)."""

    def password_rule(self) -> PasswordRule:
        """What a password must be, as the pool's policy says."""

    def start_passkey_registration(self, email: str, password: str, code: str = "") -> dict[str, Any]:
        """Begin adding a passkey (the password asked again, and a TOTP `code` where TOTP is on):
        the options (WebAuthn's PublicKeyCredentialCreationOptions, JSON-encoded) for
        navigator.credentials.create."""

    def complete_passkey_registration(
        self, email: str, password: str, credential: dict[str, Any], code: str = ""
    ) -> list[Passkey]:
        """Add the passkey the browser made (its RegistrationResponseJSON) to the person's: their
        passkeys then. PasskeyRefused if the pool does not accept it."""

    def passkeys(self, email: str, password: str, code: str = "") -> list[Passkey]:
        """The person's passkeys (the password asked again)."""

    def remove_passkey(self, email: str, password: str, credential_id: str, code: str = "") -> list[Passkey]:
        """Remove one of the person's passkeys (their passkeys then); PasskeyRefused if it is
        none of theirs."""

    def start_passkey_sign_in(self, email: str) -> PasskeyChallenge:
        """Begin signing in with a passkey. SignInRefused if the person has none (or no account)."""

    def finish_passkey_sign_in(self, challenge: Challenge, credential: dict[str, Any]) -> Person | Challenge:
        """The person, once the pool has checked the browser's answer (AuthenticationResponseJSON),
        or what it asks next (a TOTP code, where the pool asks one after a passkey)."""


class WorkspaceNames(Protocol):
    def names_of(self, workspace_ids: list[str]) -> dict[str, str]:
        """The names of those of `workspace_ids` that have one."""

    def rename(self, workspace_id: str, name: str, now: datetime) -> None:
        """Set the workspace's name (the last one set wins)."""


class InvitationMessages(Protocol):
    def send(self, invitation: Invitation, link: str) -> bool:
        """Tell the invited person, at their address, the link that accepts the invitation: True
        once it is on its way, False if this way cannot reach them (Cognito welcomes only an
        address with no account yet), and the next way is tried."""
