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
- Identity providers are honoured by name as Cognito does: those the pool has (moto's
  cognito-idp keeps the ones the console makes through the Cognito adapter) and the console's
  SSO client lists (its SupportedIdentityProviders, read at each authorize); the ID token names
  the provider and its type. The deploy-time test provider is made in the pool at start.
- GET /idp/.well-known/openid-configuration and /idp/saml-metadata.xml: a local identity
  provider's discovery document (issuer `<base>/idp`) and SAML metadata, for setting single
  sign-on up in the console (SHORTLINK_SSO_ALLOW_LOOPBACK lets the console fetch them here).

Not exercised by it: the identity provider's own sign-in and its SAML assertion or OIDC tokens
(the form stands in for any provider's sign-in), Cognito's reading of the provider's discovery
document or metadata, its attribute mapping, the user it creates in the pool, its managed login pages.
"""

import base64
import contextlib
import hashlib
import html
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import flask
from joserfc import jwt
from joserfc.jwk import RSAKey

CODE_LIFETIME_SECONDS = 300  # Cognito's authorization codes last five minutes
ID_TOKEN_LIFETIME_SECONDS = 300  # the sso.yaml client's IdTokenValidity


# The identity providers the console's client may sign in through, by name → type (SAML, OIDC).
PoolProviders = Callable[[], dict[str, str]]
ROOT = Path(__file__).resolve().parents[3]


@dataclass(frozen=True)
class IssuedCode:
    provider: str
    provider_type: str
    email: str
    client_id: str
    redirect_uri: str
    nonce: str
    challenge: str
    expires_at: float


def issuer_of(region: str, pool_id: str) -> str:
    return f"https://cognito-idp.{region}.amazonaws.com/{pool_id}"


class FakeManagedLogin:
    def __init__(
        self,
        region: str,
        pool_id: str,
        client_id: str,
        callback_url: str,
        provider_name: str,
        pool_providers: PoolProviders | None = None,
    ) -> None:
        self.issuer = issuer_of(region, pool_id)
        self.client_id = client_id
        self.callback_url = callback_url
        self.provider_name = provider_name
        # Without a pool to read, the one provider named (as deployed with a provider of its own).
        self.pool_providers = pool_providers or (lambda: {provider_name: "SAML"})
        self.key = RSAKey.generate_key(2048, parameters={"kid": secrets.token_hex(8), "alg": "RS256", "use": "sig"})
        self.certificate = self_signed_certificate(self.key)
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
        if query.get("identity_provider") not in self.pool_providers():
            return "identity_provider is not one of the client's identity providers"
        if query.get("code_challenge_method") != "S256" or not query.get("code_challenge"):
            return "an S256 code_challenge is required"
        return None

    def id_token(self, issued: IssuedCode, now: float) -> str:
        user_id = issued.email.lower()  # an IdP names a person the same way each time
        # The pool's user of this person through this provider: one per provider, as Cognito's.
        subject = hashlib.sha256(f"{self.issuer}|{issued.provider}|{user_id}".encode()).hexdigest()[:32]
        claims = {
            "sub": subject,
            "email_verified": False,  # federated emails are the identity provider's word
            "iss": self.issuer,
            "cognito:username": f"{issued.provider}_{user_id}",
            "nonce": issued.nonce,
            "origin_jti": secrets.token_hex(16),
            "aud": issued.client_id,
            "identities": [
                {
                    "userId": user_id,
                    "providerName": issued.provider,
                    "providerType": issued.provider_type,
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
            provider = form["identity_provider"]
            issued = IssuedCode(
                provider,
                self.pool_providers().get(provider, "SAML"),
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

        @app.get("/idp/.well-known/openid-configuration")
        def discovery() -> Any:
            issuer = f"{flask.request.host_url.rstrip('/')}/idp"
            endpoints = {"authorization_endpoint": "authorize", "token_endpoint": "token", "jwks_uri": "jwks.json"}
            return flask.jsonify({"issuer": issuer, **{name: f"{issuer}/{path}" for name, path in endpoints.items()}})

        @app.get("/idp/saml-metadata.xml")
        def saml_metadata() -> Any:
            document = local_saml_metadata(flask.request.host_url.rstrip("/"), self.certificate)
            return flask.Response(document, 200, mimetype="text/xml")

        return app


def local_saml_metadata(base: str, certificate: str) -> str:
    """The local identity provider's SAML metadata: its entity, sign-on service and a certificate."""
    return (
        '<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" '
        f'xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="{base}/idp">'
        '<md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">'
        '<md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>'
        f"{certificate}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>"
        '<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" '
        f'Location="{base}/idp/sso"/></md:IDPSSODescriptor></md:EntityDescriptor>'
    )


def self_signed_certificate(key: RSAKey) -> str:
    """A certificate of `key` for a year, its DER in base64 as SAML metadata carries it."""
    from datetime import UTC, datetime, timedelta

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.x509.oid import NameOID

    private = key.private_key
    assert private is not None  # a key this module generated, private half and all
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "local-idp")])
    start = datetime.now(UTC)
    builder = x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(private.public_key())
    builder = builder.serial_number(x509.random_serial_number()).not_valid_before(start)
    certificate = builder.not_valid_after(start + timedelta(days=365)).sign(private, hashes.SHA256())
    return base64.b64encode(certificate.public_bytes(serialization.Encoding.DER)).decode()


def pool_providers(cognito: Any, pool_id: str, client_id: str) -> PoolProviders:
    """The providers the pool has and the console's client lists, read from the pool at each call."""

    def listed() -> dict[str, str]:
        client = cognito.describe_user_pool_client(UserPoolId=pool_id, ClientId=client_id)["UserPoolClient"]
        names = set(client.get("SupportedIdentityProviders") or [])
        found = cognito.list_identity_providers(UserPoolId=pool_id, MaxResults=60)["Providers"]
        return {each["ProviderName"]: each["ProviderType"] for each in found if each["ProviderName"] in names}

    return listed


@cache
def sso_client_properties() -> dict[str, Any]:
    """sso.yaml's SsoClient as its template gives it (read once: SAM's reader takes a while)."""
    from tools.developers.devstack.template import LocalTemplate

    return dict(LocalTemplate.load(ROOT / "sso.yaml").properties("SsoClient"))


def create_sso_client(cognito: Any, pool_id: str, callback: str, provider: str, base: str) -> str:
    """sso.yaml's SsoClient in the local pool (its properties read from sso.yaml), listing the
    deploy-time test provider, made first in the pool as an OIDC provider of the stand-in."""
    details = {"client_id": "local", "client_secret": "local", "oidc_issuer": f"{base}/idp"}
    with contextlib.suppress(cognito.exceptions.DuplicateProviderException):  # a pool the regions share
        cognito.create_identity_provider(
            UserPoolId=pool_id,
            ProviderName=provider,
            ProviderType="OIDC",
            ProviderDetails={**details, "authorize_scopes": "openid email profile", "attributes_request_method": "GET"},
            AttributeMapping={"email": "email"},
        )
    given = {key: value for key, value in sso_client_properties().items() if key not in ("UserPoolId", "Metadata")}
    request = {
        **given,
        "ClientName": LOCAL_CLIENT_ID,
        "CallbackURLs": [callback],
        "SupportedIdentityProviders": [provider],
    }
    return str(cognito.create_user_pool_client(UserPoolId=pool_id, **request)["UserPoolClient"]["ClientId"])


# What `SSO=1 make dev` takes from its environment, with the local defaults.
LOCAL_SSO_DEFAULTS = {
    "SSO_PROVIDER_NAME": "TestIdP",
    "SSO_BUTTON_LABEL": "Example Corp",
    "SSO_DEFAULT_ROLE": "viewer",
}
LOCAL_CLIENT_ID = "local-console-sso"


def start_managed_login(
    port: int, region: str, pool_id: str, console_base: str, running: Any, cognito: Any
) -> dict[str, str]:
    """Serve the fake managed login of the pool `pool_id` on `port` (stopped with `running`, an
    ExitStack), with the console's SSO client made in the pool (`cognito`), and return the
    console's SSO_* variables that point at it."""
    import os

    from werkzeug.serving import make_server

    from tools.developers.devstack.serving import HOST, ensure_free

    chosen = {name: os.environ.get(name) or default for name, default in LOCAL_SSO_DEFAULTS.items()}
    callback = f"{console_base}/console/sso/callback"
    ensure_free(port, "the local managed login (SSO=1) needs it: set SSO_PORT=<free port>")
    base = f"http://{HOST}:{port}"
    provider = chosen["SSO_PROVIDER_NAME"]
    client_id = create_sso_client(cognito, pool_id, callback, provider, base)
    providers = pool_providers(cognito, pool_id, client_id)
    login = FakeManagedLogin(region, pool_id, client_id, callback, provider, providers)
    server = make_server(HOST, port, login.app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, name="managed-login", daemon=True)
    thread.start()
    running.callback(server.server_close)
    running.callback(server.shutdown)
    return {
        **chosen,
        "SSO_LOGIN_URL": base,
        "SSO_CLIENT_ID": client_id,
        "SSO_ISSUER": login.issuer,
        "SSO_JWKS_URL": f"{base}/.well-known/jwks.json",
        "SSO_CALLBACK_URL": callback,
        "SHORTLINK_SSO_ALLOW_LOOPBACK": "true",  # the local identity provider's documents, above
    }
