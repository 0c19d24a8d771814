"""A workspace's own identity provider, set up by an owner in the console: what is kept of it
(never the OIDC client secret: that lives in the user pool's provider only), its name in the
pool, and its life: saved (not on), tested by a sign-in through it, turned on. Pure code."""

import hashlib
import re
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Literal

from shortlink.errors import ShortlinkError

Protocol = Literal["OIDC", "SAML"]
PROTOCOLS: tuple[Protocol, ...] = ("OIDC", "SAML")
# Cognito's provider names: 1 to 32 characters, no underscore; "ws-" keeps clear of its own
# (COGNITO, Google, Facebook, LoginWithAmazon, SignInWithApple) and of a deploy-time provider's.
NAME_PREFIX = "ws-"
MAX_PROVIDER_NAME = 32
_PLAIN_ID = re.compile(r"[A-Za-z0-9-]{1,29}")


class SsoSetupInvalid(ShortlinkError):
    """A set-up the console refuses: messages keyed by the form field they belong to."""

    def __init__(self, errors: dict[str, str], status: int = 422) -> None:
        super().__init__("; ".join(errors.values()))
        self.errors = errors
        self.status = status


class SsoSetupState(ShortlinkError):
    """A step that does not fit where the set-up is (turning on an untested one, no set-up at all)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def provider_name_for(workspace_id: str) -> str:
    """The workspace's identity provider's name in the shared pool: its id where Cognito's name
    rules allow it, else a digest of it (stable, so a new save updates the same provider)."""
    if _PLAIN_ID.fullmatch(workspace_id):
        return f"{NAME_PREFIX}{workspace_id}"
    return f"{NAME_PREFIX}{hashlib.sha256(workspace_id.encode()).hexdigest()[: MAX_PROVIDER_NAME - len(NAME_PREFIX)]}"


@dataclass(frozen=True)
class ProviderSetup:
    """What the console keeps of a workspace's identity provider. `version` grows with each save;
    a test sign-in counts for the version it started with, so a change asks for a new test."""

    workspace_id: str
    protocol: Protocol
    button_label: str
    default_role: str
    email_domains: tuple[str, ...]
    updated_at: datetime
    updated_by: str
    email_attribute: str = ""  # the SAML attribute or OIDC claim Cognito maps to the pool's email
    issuer: str = ""  # OIDC
    client_id: str = ""  # OIDC
    metadata_url: str = ""  # SAML by URL; empty: an uploaded document
    version: int = 1
    tested_version: int = 0
    tested_by: str = ""
    turned_on: bool = False

    @property
    def provider_name(self) -> str:
        return provider_name_for(self.workspace_id)

    @property
    def tested(self) -> bool:
        return self.tested_version == self.version

    @property
    def on(self) -> bool:
        return self.turned_on and self.tested

    @property
    def state(self) -> str:
        """How the settings page names where it is."""
        return "on" if self.on else ("tested, not yet on" if self.tested else "not yet on: test it first")


def saved_again(current: ProviderSetup | None, saved: ProviderSetup) -> ProviderSetup:
    """`saved` as the next version of `current`: untested and off until a test sign-in passes."""
    version = current.version + 1 if current is not None else 1
    return replace(saved, version=version, tested_version=0, tested_by="", turned_on=False)


def marked_tested(setup: ProviderSetup, version: int, email: str) -> ProviderSetup:
    """The set-up once its owner signed in through it, in the version the test started with."""
    if version != setup.version:
        raise SsoSetupState(409, "The settings changed after this test sign-in started: test them again.")
    return replace(setup, tested_version=version, tested_by=email)


def turned_on(setup: ProviderSetup) -> ProviderSetup:
    if not setup.tested:
        raise SsoSetupState(409, "Test the sign-in through this identity provider before turning it on.")
    return replace(setup, turned_on=True)


def turned_off(setup: ProviderSetup) -> ProviderSetup:
    return replace(setup, turned_on=False)
