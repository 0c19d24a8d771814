"""The console's sign-in: the key of its sessions and single sign-on through the user pool's
managed login."""

from typing import TYPE_CHECKING

from shortlink.settings.console import ConsoleSettings
from shortlink.wiring.environment import settings_of, sso_settings
from shortlink.wiring.factories import factory

if TYPE_CHECKING:
    from shortlink.adapters.http.managed_login import HttpManagedLogin
    from shortlink.sso.signing_keys import SigningKeys


@factory
def console_session_secret() -> bytes:
    """The key that signs console sessions (read on the first console request, then kept)."""
    from shortlink.secrets import read_secret

    console = settings_of(ConsoleSettings)
    return read_secret(
        console.session_secret,
        console.session_secret_parameter,
        ("CONSOLE_SESSION_SECRET", "CONSOLE_SESSION_SECRET_PARAMETER"),
        "the console session secret",
    )


def recovery_code_key() -> bytes:
    """The key of recovery codes' HMACs: derived from the console's session secret (in SSM, never
    beside the table), so that the table alone tests no guess."""
    import hashlib
    import hmac

    return hmac.new(console_session_secret(), b"recovery-codes", hashlib.sha256).digest()


@factory
def managed_login() -> "HttpManagedLogin":
    """The user pool's managed login: the SSO callback's token endpoint and signing keys."""
    from shortlink.adapters.http.managed_login import HttpManagedLogin

    config = sso_settings()
    return HttpManagedLogin(config.login_url, config.client_id, config.callback_url)


@factory
def sso_signing_keys() -> "SigningKeys":
    """The keys that sign the pool's ID tokens, kept per environment (shortlink.sso.signing_keys);
    read from SSO_JWKS_URL, the pool's own key set unless the local stand-in's."""
    from shortlink.adapters.http.jwks import CachedJwks
    from shortlink.sso.signing_keys import SigningKeys

    return SigningKeys(CachedJwks(sso_settings().jwks_url).keys)
