"""Where the console sends the browser to sign in: the managed login's authorize endpoint, with
the identity provider named (managed login then goes straight to it: the sign-in's own, a
workspace's, or else the deploy-time one) and this sign-in's state, nonce and PKCE challenge."""

from urllib.parse import urlencode

from shortlink.settings.sso import SsoSettings
from shortlink.sso.login_state import LoginState

SCOPES = "openid email profile"


def authorize_url(settings: SsoSettings, login: LoginState) -> str:
    query = {
        "response_type": "code",
        "client_id": settings.client_id,
        "redirect_uri": settings.callback_url,
        "identity_provider": login.provider or settings.provider_name,
        "scope": SCOPES,
        "state": login.state,
        "nonce": login.nonce,
        "code_challenge": login.challenge,
        "code_challenge_method": "S256",
    }
    return f"{settings.login_url}/oauth2/authorize?{urlencode(query)}"
