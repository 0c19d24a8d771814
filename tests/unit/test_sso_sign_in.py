"""A sign-in's state cookie (shortlink.sso.login_state), where it sends the browser
(shortlink.sso.authorize) and the callback's checks before the token's (shortlink.sso.callback)."""

import base64
import hashlib
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from joserfc import jwt
from joserfc.jwk import RSAKey

from shortlink.settings.sso import SsoSettings
from shortlink.sso.authorize import authorize_url
from shortlink.sso.callback import completed_sign_in
from shortlink.sso.login_state import LOGIN_STATE_LIFETIME, read_login_state, start_login
from shortlink.sso.refusals import SsoRefused
from shortlink.sso.signing_keys import SigningKeys

SECRET = b"console-session-secret-for-tests"
NOW = datetime(2027, 1, 15, 9, 30, tzinfo=UTC)
SETTINGS = SsoSettings.from_env(
    {
        "SSO_PROVIDER_NAME": "Okta",
        "SSO_BUTTON_LABEL": "Example Corp",
        "SSO_LOGIN_URL": "https://shortlink-example.auth.eu-west-1.amazoncognito.com",
        "SSO_CLIENT_ID": "consoleclient123",
        "SSO_ISSUER": "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Example",
        "SSO_CALLBACK_URL": "https://sho.rt/console/sso/callback",
        "SSO_WORKSPACE": "acme",
    }
)
KEY = RSAKey.generate_key(2048, parameters={"kid": "k1"})


class TokenEndpoint:
    """The managed login's token endpoint as the callback sees it: it knows one code."""

    def __init__(self, code: str, token: str) -> None:
        self.code, self.token = code, token
        self.calls: list[tuple[str, str]] = []

    def id_token(self, code: str, verifier: str) -> str:
        self.calls.append((code, verifier))
        if code != self.code:
            raise SsoRefused(400, "The login service refused the sign-in code")
        return self.token


class UsedStates:
    def __init__(self) -> None:
        self.used: set[str] = set()

    def claim(self, state: str, expires_at: int) -> bool:
        if state in self.used:
            return False
        self.used.add(state)
        return True


def id_token(nonce: str, **changes: Any) -> str:
    claims = {
        "iss": SETTINGS.issuer,
        "aud": SETTINGS.client_id,
        "token_use": "id",
        "sub": "5e7a-grace",
        "email": "grace@example.com",
        "nonce": nonce,
        "iat": int(NOW.timestamp()),
        "exp": int(NOW.timestamp()) + 300,
        "identities": [{"providerName": "Okta", "userId": "00u1"}],
        **changes,
    }
    return jwt.encode({"alg": "RS256", "kid": "k1"}, claims, KEY)


def keys() -> SigningKeys:
    return SigningKeys(lambda refresh: {"keys": [KEY.as_dict(private=False)]})


def test_the_login_state_cookie_reads_back_until_it_expires_and_never_forged():
    login, cookie = start_login(NOW, SECRET)
    assert read_login_state(cookie, NOW, SECRET) == login
    assert read_login_state(cookie, NOW + LOGIN_STATE_LIFETIME, SECRET) is None
    assert read_login_state(cookie, NOW, b"another-secret-entirely") is None
    payload, signature = cookie.split(".")
    assert read_login_state(f"{payload}x.{signature}", NOW, SECRET) is None
    assert read_login_state(None, NOW, SECRET) is None
    # Two sign-ins share nothing.
    other, _ = start_login(NOW, SECRET)
    assert {other.state, other.nonce, other.verifier}.isdisjoint({login.state, login.nonce, login.verifier})


def test_the_browser_goes_to_the_managed_login_naming_the_provider_with_an_s256_challenge():
    login, _ = start_login(NOW, SECRET)
    url = urlsplit(authorize_url(SETTINGS, login))
    assert f"{url.scheme}://{url.netloc}{url.path}" == f"{SETTINGS.login_url}/oauth2/authorize"
    query = {name: values[0] for name, values in parse_qs(url.query).items()}
    assert query == {
        "response_type": "code",
        "client_id": "consoleclient123",
        "redirect_uri": "https://sho.rt/console/sso/callback",
        "identity_provider": "Okta",
        "scope": "openid email profile",
        "state": login.state,
        "nonce": login.nonce,
        "code_challenge": query["code_challenge"],
        "code_challenge_method": "S256",
    }
    digest = hashlib.sha256(login.verifier.encode()).digest()
    assert query["code_challenge"] == base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
    assert 43 <= len(login.verifier) <= 128


def test_a_complete_callback_names_the_person_and_redeems_the_code_with_the_verifier():
    login, _ = start_login(NOW, SECRET)
    tokens = TokenEndpoint("the-code", id_token(login.nonce))
    states = UsedStates()
    query = {"code": "the-code", "state": login.state}
    identity = completed_sign_in(query, login, SETTINGS, tokens, keys(), states.claim, NOW.timestamp())
    assert identity.email == "grace@example.com"
    assert tokens.calls == [("the-code", login.verifier)]
    # The same answer again (a replay): refused before the code is sent anywhere.
    with pytest.raises(SsoRefused, match="already completed"):
        completed_sign_in(query, login, SETTINGS, tokens, keys(), states.claim, NOW.timestamp())
    assert len(tokens.calls) == 1


@pytest.mark.parametrize(
    ("query", "has_login", "reason"),
    [
        (
            {"error": "access_denied", "error_description": "User is not assigned to the app", "state": "s"},
            True,
            "Example Corp did not sign you in: access_denied (User is not assigned to the app).",
        ),
        ({"code": "the-code", "state": "s"}, False, "No sign-in was started in this browser"),
        ({"code": "the-code", "state": "forged-state"}, True, "its state differs"),
        ({"code": "the-code"}, True, "its state differs"),
        ({"state": "<own>"}, True, "carries no sign-in code"),
        ({"code": "x" * 600, "state": "<own>"}, True, "carries no sign-in code"),
        ({"code": "another-code", "state": "<own>"}, True, "refused the sign-in code"),
    ],
)
def test_each_bad_callback_is_refused_with_a_4xx_naming_the_problem(query, has_login, reason):
    login, _ = start_login(NOW, SECRET)
    query = {name: (login.state if value == "<own>" else value) for name, value in query.items()}
    tokens = TokenEndpoint("the-code", id_token(login.nonce))
    with pytest.raises(SsoRefused) as refused:
        completed_sign_in(
            query, login if has_login else None, SETTINGS, tokens, keys(), UsedStates().claim, NOW.timestamp()
        )
    assert reason in str(refused.value)
    assert refused.value.status == 400


def test_a_token_for_another_sign_in_is_refused_after_the_exchange():
    login, _ = start_login(NOW, SECRET)
    tokens = TokenEndpoint("the-code", id_token("the-nonce-of-another-browser"))
    with pytest.raises(SsoRefused, match="nonce differs") as refused:
        completed_sign_in(
            {"code": "the-code", "state": login.state},
            login,
            SETTINGS,
            tokens,
            keys(),
            UsedStates().claim,
            NOW.timestamp(),
        )
    assert refused.value.status == 401


@pytest.mark.parametrize(
    ("changes", "problem"),
    [
        ({"SSO_CLIENT_ID": ""}, "needs SSO_CLIENT_ID"),
        ({"SSO_DEFAULT_ROLE": "admin"}, "SSO_DEFAULT_ROLE must be one of viewer, editor"),
        ({"SSO_CALLBACK_URL": ""}, "needs PUBLIC_BASE_URL"),
    ],
)
def test_settings_refuse_an_incomplete_or_overreaching_configuration(changes, problem):
    from shortlink.errors import ConfigurationError

    env = {
        "SSO_PROVIDER_NAME": "Okta",
        "SSO_LOGIN_URL": "https://x.auth.eu-west-1.amazoncognito.com",
        "SSO_CLIENT_ID": "c",
        "SSO_ISSUER": "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_E",
        "SSO_CALLBACK_URL": "https://sho.rt/console/sso/callback",
        "SSO_WORKSPACE": "acme",
    }
    with pytest.raises(ConfigurationError, match=problem):
        SsoSettings.from_env({**env, **changes})


def test_the_callback_is_under_the_public_base_url_unless_named():
    env = {
        "SSO_PROVIDER_NAME": "Okta",
        "SSO_LOGIN_URL": "https://x.auth.eu-west-1.amazoncognito.com",
        "SSO_CLIENT_ID": "c",
        "SSO_ISSUER": "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_E",
        "SSO_WORKSPACE": "acme",
        "PUBLIC_BASE_URL": "https://sho.rt",
    }
    assert SsoSettings.from_env(env).callback_url == "https://sho.rt/console/sso/callback"


def test_settings_are_off_without_a_provider_and_default_to_viewer_and_the_pools_keys():
    assert not SsoSettings.from_env({}).enabled
    assert SETTINGS.enabled
    assert SETTINGS.default_role == "viewer"
    assert SETTINGS.button_label == "Example Corp"
    assert SETTINGS.jwks_url == "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Example/.well-known/jwks.json"
