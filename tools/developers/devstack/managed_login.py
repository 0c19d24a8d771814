"""make dev's stand-in for the user pool's managed login when single sign-on is on (SSO=1): the
endpoints the console calls, faithful to Cognito's as far as the console can tell.

- GET /oauth2/authorize checks the request as Cognito does (client, registered callback, code
  flow, the identity provider, an S256 PKCE challenge) and shows a one-field form: the email of
  a test person "at the identity provider". POST /oauth2/authorize sends the browser back to
  the callback with a code and the state.
- POST /oauth2/token redeems a code once, for the client and callback it was issued to and the
  verifier of its challenge, for an ID token (RS256, a key generated at start) with Cognito's
  claims for a federated person: iss https://cognito-idp.<region>.amazonaws.com/<pool id>, aud,
  token_use, cognito:username <provider>_<email>, email, nonce, identities.
- GET /.well-known/jwks.json serves the public key (Cognito serves it under the issuer).

Not exercised by it: the identity provider's own sign-in and its SAML assertion or OIDC tokens,
Cognito's attribute mapping, the user it creates in the pool, its managed login pages.
"""

import base64
import hashlib
import html
import secrets
import threading
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import flask
from joserfc import jwt
from joserfc.jwk import RSAKey

CODE_LIFETIME_SECONDS = 300  # Cognito's authorization codes last five minutes
ID_TOKEN_LIFETIME_SECONDS = 300  # the sso.yaml client's IdTokenValidity


@dataclass(frozen=True)
class IssuedCode:
    email: str
    client_id: str
    redirect_uri: str
    nonce: str
    challenge: str
    expires_at: float


def issuer_of(region: str, pool_id: str) -> str:
    return f"https://cognito-idp.{region}.amazonaws.com/{pool_id}"


class FakeManagedLogin:
    def __init__(self, region: str, pool_id: str, client_id: str, callback_url: str, provider_name: str) -> None:
        self.issuer = issuer_of(region, pool_id)
        self.client_id = client_id
        self.callback_url = callback_url
        self.provider_name = provider_name
        self.key = RSAKey.generate_key(2048, parameters={"kid": secrets.token_hex(8), "alg": "RS256", "use": "sig"})
        self._codes: dict[str, IssuedCode] = {}
        self._lock = threading.Lock()
        self.app = self._routes()

    def _refusal(self, error: str, status: int = 400) -> flask.Response:
        return flask.jsonify({"error": error}), status  # type: ignore[return-value]

    def _authorize_problem(self, query: Any) -> str | None:
        """What Cognito would refuse in an authorize request (it shows an error page), or None."""
        if query.get("client_id") != self.client_id:
            return "unknown client_id"
        if query.get("redirect_uri") != self.callback_url:
            return "redirect_uri is not one of the client's callback URLs"
        if query.get("response_type") != "code":
            return "response_type must be code"
        if query.get("identity_provider") != self.provider_name:
            return f"identity_provider must be {self.provider_name}"
        if query.get("code_challenge_method") != "S256" or not query.get("code_challenge"):
            return "an S256 code_challenge is required"
        return None

    def id_token(self, issued: IssuedCode, now: float) -> str:
        user_id = issued.email.lower()  # an IdP names a person the same way each time
        claims = {
            "sub": str(hashlib.sha256(f"{self.issuer}|{user_id}".encode()).hexdigest()[:32]),
            "email_verified": False,  # federated emails are the identity provider's word
            "iss": self.issuer,
            "cognito:username": f"{self.provider_name}_{user_id}",
            "nonce": issued.nonce,
            "origin_jti": secrets.token_hex(16),
            "aud": issued.client_id,
            "identities": [
                {
                    "userId": user_id,
                    "providerName": self.provider_name,
                    "providerType": "SAML",
                    "issuer": None,
                    "primary": "true",
                    "dateCreated": str(int(now * 1000)),
                }
            ],
            "token_use": "id",
            "auth_time": int(now),
            "exp": int(now) + ID_TOKEN_LIFETIME_SECONDS,
            "iat": int(now),
            "jti": secrets.token_hex(16),
            "email": issued.email,
        }
        return jwt.encode({"alg": "RS256", "kid": self.key.kid}, claims, self.key)

    def _routes(self) -> flask.Flask:
        app = flask.Flask("fake_managed_login")

        @app.get("/oauth2/authorize")
        def authorize_page() -> Any:
            query = flask.request.args
            if problem := self._authorize_problem(query):
                return flask.Response(f"Invalid request: {html.escape(problem)}", 400, mimetype="text/plain")
            hidden = "".join(
                f'<input type="hidden" name="{html.escape(name)}" value="{html.escape(value)}">'
                for name, value in query.items()
            )
            page = (
                '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign in (local SSO)</title>'
                "</head><body><main><h1>Sign in with the test identity provider</h1>"
                f'<form method="post" action="/oauth2/authorize">{hidden}'
                '<label for="email">Email</label> <input id="email" name="email" type="email" required>'
                ' <button type="submit" id="idp-sign-in">Sign in</button></form></main></body></html>'
            )
            return flask.Response(page, 200, mimetype="text/html")

        @app.post("/oauth2/authorize")
        def authorize() -> Any:
            form = flask.request.form
            if problem := self._authorize_problem(form):
                return flask.Response(f"Invalid request: {html.escape(problem)}", 400, mimetype="text/plain")
            email = form.get("email", "").strip()
            if "@" not in email:
                return flask.Response("Invalid request: an email is required", 400, mimetype="text/plain")
            code = secrets.token_urlsafe(24)
            issued = IssuedCode(
                email,
                form["client_id"],
                form["redirect_uri"],
                form.get("nonce", ""),
                form["code_challenge"],
                time.time() + CODE_LIFETIME_SECONDS,
            )
            with self._lock:
                self._codes[code] = issued
            answer = {"code": code, **({"state": form["state"]} if form.get("state") else {})}
            return flask.redirect(f"{form['redirect_uri']}?{urlencode(answer)}", 302)

        @app.post("/oauth2/token")
        def token() -> Any:
            form = flask.request.form
            if form.get("grant_type") != "authorization_code":
                return self._refusal("unsupported_grant_type")
            with self._lock:
                issued = self._codes.pop(form.get("code", ""), None)  # a code is redeemed once
            if issued is None or issued.expires_at < time.time():
                return self._refusal("invalid_grant")
            if form.get("client_id") != issued.client_id:
                return self._refusal("invalid_client", 401)
            verifier = form.get("code_verifier", "")
            challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
            if form.get("redirect_uri") != issued.redirect_uri or challenge != issued.challenge:
                return self._refusal("invalid_grant")
            return flask.jsonify(
                {
                    "id_token": self.id_token(issued, time.time()),
                    "access_token": secrets.token_urlsafe(32),
                    "refresh_token": secrets.token_urlsafe(32),
                    "expires_in": ID_TOKEN_LIFETIME_SECONDS,
                    "token_type": "Bearer",
                }
            )

        @app.get("/.well-known/jwks.json")
        def jwks() -> Any:
            return flask.jsonify({"keys": [self.key.as_dict(private=False)]})

        return app


# What `SSO=1 make dev` takes from its environment, with the local defaults.
LOCAL_SSO_DEFAULTS = {
    "SSO_PROVIDER_NAME": "TestIdP",
    "SSO_BUTTON_LABEL": "Example Corp",
    "SSO_DEFAULT_ROLE": "viewer",
}
LOCAL_CLIENT_ID = "local-console-sso"


def start_managed_login(port: int, region: str, pool_id: str, console_base: str, running: Any) -> dict[str, str]:
    """Serve the fake managed login of the pool `pool_id` on `port` (stopped with `running`, an
    ExitStack) and return the console's SSO_* variables that point at it."""
    import os

    from werkzeug.serving import make_server

    from tools.developers.devstack.serving import HOST, ensure_free

    chosen = {name: os.environ.get(name) or default for name, default in LOCAL_SSO_DEFAULTS.items()}
    callback = f"{console_base}/console/sso/callback"
    login = FakeManagedLogin(region, pool_id, LOCAL_CLIENT_ID, callback, chosen["SSO_PROVIDER_NAME"])
    ensure_free(port, "the local managed login (SSO=1) needs it: set SSO_PORT=<free port>")
    server = make_server(HOST, port, login.app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, name="managed-login", daemon=True)
    thread.start()
    running.callback(server.server_close)
    running.callback(server.shutdown)
    base = f"http://{HOST}:{port}"
    return {
        **chosen,
        "SSO_LOGIN_URL": base,
        "SSO_CLIENT_ID": LOCAL_CLIENT_ID,
        "SSO_ISSUER": login.issuer,
        "SSO_JWKS_URL": f"{base}/.well-known/jwks.json",
        "SSO_CALLBACK_URL": callback,
    }
