"""The callback of a sign-in: the identity provider's answer, the browser's state, the code
redeemed for an ID token, and the token's checks. What comes out is a verified identity; every
failure is an SsoRefused naming the problem, raised before anything is written."""

import hmac
from collections.abc import Callable, Mapping
from typing import Protocol

from shortlink.settings.sso import SsoSettings
from shortlink.sso.id_tokens import ExpectedToken, SsoIdentity, verified_identity
from shortlink.sso.login_state import LoginState
from shortlink.sso.refusals import SsoRefused
from shortlink.sso.signing_keys import SigningKeys

MAX_CODE_CHARS = 512
MAX_SHOWN_CHARS = 200


class TokenEndpoint(Protocol):
    def id_token(self, code: str, verifier: str) -> str:
        """The ID token the managed login gives for `code` (SsoRefused if it refuses the code)."""
        ...


# Records a sign-in's state as used until it expires: False if it was used already.
ClaimState = Callable[[str, int], bool]


def _shown(text: str) -> str:
    return " ".join(text.split())[:MAX_SHOWN_CHARS]


def completed_sign_in(
    query: Mapping[str, str],
    login: LoginState | None,
    settings: SsoSettings,
    tokens: TokenEndpoint,
    keys: SigningKeys,
    claim_state: ClaimState,
    now: float,
) -> SsoIdentity:
    """Who signed in, from the callback's `query` and the browser's sign-in (`login`, None when
    its cookie is missing, forged or expired)."""
    if error := query.get("error"):
        description = query.get("error_description", "")
        detail = f"{_shown(error)}{f' ({_shown(description)})' if description else ''}"
        raise SsoRefused(400, f"{settings.button_label or 'The identity provider'} did not sign you in: {detail}.")
    if login is None:
        raise SsoRefused(400, "No sign-in was started in this browser in the last 10 minutes: start again.")
    state = query.get("state", "")
    if not state or not hmac.compare_digest(state.encode(), login.state.encode()):
        raise SsoRefused(400, "This answer belongs to another sign-in (its state differs): start again.")
    code = query.get("code", "")
    if not code or len(code) > MAX_CODE_CHARS:
        raise SsoRefused(400, "The answer carries no sign-in code: start again.")
    if not claim_state(login.state, login.expires_at):
        raise SsoRefused(400, "This sign-in was already completed once: start again.")
    token = tokens.id_token(code, login.verifier)
    # A workspace's own provider, if the sign-in named one; else the deploy-time provider.
    provider = login.provider or settings.provider_name
    expected = ExpectedToken(settings.issuer, settings.client_id, login.nonce, provider)
    return verified_identity(token, keys, expected, now)
