"""The managed login's HTTP adapter (shortlink.adapters.http.managed_login) against the local
stand-in of Cognito's managed login (tools.developers.devstack.managed_login), served over real HTTP in this
process: a code redeemed once with its PKCE verifier for an ID token the served keys (read by
shortlink.adapters.http.jwks) verify; every other redemption refused."""

import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
import urllib3
from werkzeug.serving import make_server

from shortlink.adapters.http.jwks import CachedJwks
from shortlink.adapters.http.managed_login import HttpManagedLogin
from shortlink.settings.sso import SsoSettings
from shortlink.sso.authorize import authorize_url
from shortlink.sso.id_tokens import ExpectedToken, verified_identity
from shortlink.sso.login_state import LoginState, start_login
from shortlink.sso.refusals import LoginServiceUnavailable, SsoRefused
from shortlink.sso.signing_keys import SigningKeys
from tests.e2e.running_stack import free_port
from tools.developers.devstack.managed_login import LOCAL_CLIENT_ID, FakeManagedLogin

CALLBACK = "https://sho.rt/console/sso/callback"


@pytest.fixture(scope="module")
def fake_login() -> Iterator[tuple[FakeManagedLogin, str]]:
    login = FakeManagedLogin("eu-west-1", "eu-west-1_Test", LOCAL_CLIENT_ID, CALLBACK, "Okta")
    port = free_port()
    server = make_server("127.0.0.1", port, login.app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield login, f"http://127.0.0.1:{port}"
    server.shutdown()
    server.server_close()


@pytest.fixture
def settings(fake_login: tuple[FakeManagedLogin, str]) -> SsoSettings:
    login, base = fake_login
    return SsoSettings.from_env(
        {
            "SSO_PROVIDER_NAME": "Okta",
            "SSO_LOGIN_URL": base,
            "SSO_CLIENT_ID": LOCAL_CLIENT_ID,
            "SSO_ISSUER": login.issuer,
            "SSO_JWKS_URL": f"{base}/.well-known/jwks.json",
            "SSO_CALLBACK_URL": CALLBACK,
            "SSO_WORKSPACE": "acme",
        }
    )


def adapter(settings: SsoSettings) -> HttpManagedLogin:
    return HttpManagedLogin(settings.login_url, settings.client_id, settings.callback_url)


def signed_in_at_the_provider(settings: SsoSettings, login: LoginState, email: str) -> dict[str, str]:
    """What the browser does at the managed login: open the authorize URL, send the form; the
    query of the redirect back to the callback."""
    http = urllib3.PoolManager()
    url = authorize_url(settings, login)
    form_page = http.request("GET", url)
    assert form_page.status == 200
    assert b'name="email"' in form_page.data
    fields = {name: values[0] for name, values in parse_qs(urlsplit(url).query).items()}
    answer = http.request(
        "POST",
        f"{settings.login_url}/oauth2/authorize",
        fields={**fields, "email": email},
        encode_multipart=False,
        redirect=False,
    )
    assert answer.status == 302
    location = urlsplit(answer.headers["Location"])
    assert f"{location.scheme}://{location.netloc}{location.path}" == CALLBACK
    return {name: values[0] for name, values in parse_qs(location.query).items()}


def test_a_code_is_redeemed_once_for_an_id_token_the_pools_keys_verify(settings):
    login, _ = start_login(datetime.now(UTC), b"s" * 32)
    query = signed_in_at_the_provider(settings, login, "Grace@Example.com")
    assert query["state"] == login.state
    token = adapter(settings).id_token(query["code"], login.verifier)
    keys = SigningKeys(CachedJwks(settings.jwks_url).keys)
    identity = verified_identity(
        token, keys, ExpectedToken(settings.issuer, settings.client_id, login.nonce, "Okta"), time.time()
    )
    assert identity.email == "grace@example.com"
    assert identity.username == "Okta_grace@example.com"
    assert settings.issuer == "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Test"
    with pytest.raises(SsoRefused, match="refused the sign-in code") as again:
        adapter(settings).id_token(query["code"], login.verifier)
    assert again.value.status == 400


def test_a_code_with_another_verifier_is_refused(settings):
    login, _ = start_login(datetime.now(UTC), b"s" * 32)
    query = signed_in_at_the_provider(settings, login, "grace@example.com")
    with pytest.raises(SsoRefused, match="refused the sign-in code"):
        adapter(settings).id_token(query["code"], "a-verifier-of-another-sign-in-that-is-long-enough")


def test_an_authorize_request_for_another_callback_is_refused_as_cognito_does(settings):
    login, _ = start_login(datetime.now(UTC), b"s" * 32)
    url = authorize_url(settings, login).replace("sho.rt", "evil.example")
    answer = urllib3.request("GET", url)
    assert answer.status == 400
    assert b"redirect_uri" in answer.data


def test_a_login_service_that_does_not_answer_or_answers_no_token_is_unavailable_not_a_refusal(settings):
    unreachable = HttpManagedLogin(f"http://127.0.0.1:{free_port()}", "c", CALLBACK)
    with pytest.raises(LoginServiceUnavailable, match="did not answer"):
        unreachable.id_token("code", "verifier")
    # A server that answers, but not as a token endpoint (an HTML 404).
    elsewhere = HttpManagedLogin(f"{settings.login_url}/not-cognito", settings.client_id, CALLBACK)
    with pytest.raises(LoginServiceUnavailable, match="answered 404 without JSON"):
        elsewhere.id_token("code", "verifier")


def test_the_served_keys_are_public_only(settings):
    document: Any = CachedJwks(settings.jwks_url).keys()
    [key] = document["keys"]
    assert key["kty"] == "RSA"
    assert key["alg"] == "RS256"
    assert "d" not in key
