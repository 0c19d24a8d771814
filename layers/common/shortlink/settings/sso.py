"""Single sign-on's settings: the console's SSO_* variables (the Sso nested stack's outputs and
the template's Sso* parameters). Off, and nothing else read, unless the managed login is given:
with it alone, owners set their workspaces' providers up in the console; with a provider named
too, the deploy-time provider's button is on the sign-in page."""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Self

from shortlink.errors import ConfigurationError

# The roles a person who signs in for the first time may get: never admin or owner by default.
DEFAULT_ROLES = ("viewer", "editor")
LOGIN_REQUIRED = ("SSO_LOGIN_URL", "SSO_CLIENT_ID", "SSO_ISSUER")
PROVIDER_REQUIRED = (*LOGIN_REQUIRED, "SSO_WORKSPACE")
CALLBACK_PATH = "/console/sso/callback"


@dataclass(frozen=True)
class SsoSettings:
    provider_name: str = ""  # the identity provider's name in the pool; empty: SSO is off
    button_label: str = ""  # "Sign in with <button_label>"
    login_url: str = ""  # the managed login's base URL (its /oauth2/authorize and /oauth2/token)
    client_id: str = ""  # the console's app client
    issuer: str = ""  # the ID tokens' iss: https://cognito-idp.<region>.amazonaws.com/<pool id>
    jwks_url: str = ""  # the pool's signing keys (<issuer>/.well-known/jwks.json unless set)
    callback_url: str = ""  # <PUBLIC_BASE_URL>/console/sso/callback unless set, as the app client lists it
    default_role: str = "viewer"  # a person's role in `workspace` on their first sign-in
    workspace: str = ""  # the workspace people who sign in this way join
    # Local stack only: identity providers' documents served on 127.0.0.1 (the template never sets it).
    documents_allow_loopback: bool = False

    @property
    def enabled(self) -> bool:
        """The deploy-time provider's button is on."""
        return bool(self.provider_name)

    @property
    def managed_login(self) -> bool:
        """The pool's managed login and the console's client are there: owners may set providers up."""
        return bool(self.login_url and self.client_id)

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Self:
        provider = env.get("SSO_PROVIDER_NAME", "").strip()
        if not provider and not env.get("SSO_LOGIN_URL", "").strip():
            return cls()
        required, given = (PROVIDER_REQUIRED, "SSO_PROVIDER_NAME") if provider else (LOGIN_REQUIRED, "SSO_LOGIN_URL")
        if missing := [name for name in required if not env.get(name, "").strip()]:
            raise ConfigurationError(f"single sign-on ({given}) needs {', '.join(missing)}")
        role = env.get("SSO_DEFAULT_ROLE", "").strip() or "viewer"
        if role not in DEFAULT_ROLES:
            raise ConfigurationError(f"SSO_DEFAULT_ROLE must be one of {', '.join(DEFAULT_ROLES)}, not {role!r}")
        issuer = env["SSO_ISSUER"].strip().rstrip("/")
        base = env.get("PUBLIC_BASE_URL", "").strip().rstrip("/")
        callback = env.get("SSO_CALLBACK_URL", "").strip() or (f"{base}{CALLBACK_PATH}" if base else "")
        if not callback:
            raise ConfigurationError("single sign-on needs PUBLIC_BASE_URL (the console's callback is under it)")
        return cls(
            provider_name=provider,
            button_label=env.get("SSO_BUTTON_LABEL", "").strip() or provider,
            login_url=env["SSO_LOGIN_URL"].strip().rstrip("/"),
            client_id=env["SSO_CLIENT_ID"].strip(),
            issuer=issuer,
            jwks_url=env.get("SSO_JWKS_URL", "").strip() or f"{issuer}/.well-known/jwks.json",
            callback_url=callback,
            default_role=role,
            workspace=env.get("SSO_WORKSPACE", "").strip(),
            documents_allow_loopback=env.get("SHORTLINK_SSO_ALLOW_LOOPBACK", "") == "true",
        )
