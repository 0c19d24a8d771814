"""make dev's passkeys: Cognito's WebAuthn operations, which moto 5.2.5 lacks, added to the
embedded moto's Cognito (in this process) and answered as Cognito answers them.

- SetUserPoolMfaConfig / GetUserPoolMfaConfig keep a pool's WebAuthnConfiguration (relying
  party id, user verification); moto keeps the rest.
- StartWebAuthnRegistration (an access token) gives CredentialCreationOptions, its challenge
  kept for the person; CompleteWebAuthnRegistration verifies the browser's credential against
  it (once), with py_webauthn: challenge, origin, relying party, user verification, attestation.
- ListWebAuthnCredentials and DeleteWebAuthnCredential: the person's own passkeys.
- InitiateAuth USER_AUTH with PREFERRED_CHALLENGE WEB_AUTHN (the client must allow USER_AUTH,
  the pool's sign-in policy WEB_AUTHN) gives CREDENTIAL_REQUEST_OPTIONS and a session;
  RespondToAuthChallenge WEB_AUTHN verifies the assertion (one of the person's credentials, its
  signature, challenge, origin, relying party and sign count) and then signs the person in with
  moto's own tokens, which GetUser takes.

Origins: Cognito takes the relying party's host and its subdomains over HTTPS; here also
http://localhost:<port>, a secure context to browsers. Not exercised by it: Cognito's limits,
its attestation policy (here any format py_webauthn verifies), its exact error messages.
"""

import json
import secrets
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

from moto.cognitoidp.exceptions import InvalidParameterException, NotAuthorizedError, ResourceNotFoundError
from moto.cognitoidp.models import CognitoIdpBackend, CognitoIdpUserPool, cognitoidp_backends
from moto.cognitoidp.responses import CognitoIdpResponse
from moto.core.exceptions import JsonRESTError
from moto.core.responses import ActionResult, EmptyResult
from webauthn import (
    generate_authentication_options,
    generate_registration_options,
    options_to_json,
    verify_authentication_response,
    verify_registration_response,
)
from webauthn.helpers import base64url_to_bytes, bytes_to_base64url, parse_client_data_json
from webauthn.helpers.exceptions import WebAuthnException
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

CHALLENGE_SECONDS = 180  # Cognito's sign-in sessions and registration challenges: 3 minutes
MAX_CREDENTIALS = 20  # Cognito's limit of passkeys per person


class WebAuthnError(JsonRESTError):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(code, message)


@dataclass
class StoredCredential:
    credential_id: bytes
    public_key: bytes
    sign_count: int
    relying_party: str
    transports: list[str]
    created_at: datetime

    def described(self) -> dict[str, Any]:
        return {
            "CredentialId": bytes_to_base64url(self.credential_id),
            "FriendlyCredentialName": "passkey",
            "RelyingPartyId": self.relying_party,
            "AuthenticatorAttachment": "platform",
            "AuthenticatorTransports": self.transports,
            "CreatedAt": self.created_at,
        }


@dataclass
class Pending:
    pool_id: str
    username: str
    challenge: bytes
    expires_at: float
    client_id: str = ""


@dataclass
class PasskeyState:
    configurations: dict[str, dict[str, str]] = field(default_factory=dict)  # pool id -> WebAuthnConfiguration
    credentials: dict[tuple[str, str], list[StoredCredential]] = field(default_factory=dict)  # (pool, username)
    registrations: dict[tuple[str, str], Pending] = field(default_factory=dict)
    sign_ins: dict[str, Pending] = field(default_factory=dict)  # session -> its challenge
    lock: threading.Lock = field(default_factory=threading.Lock)


STATE = PasskeyState()


def allowed_origin(origin: str, relying_party: str) -> bool:
    """Whether a browser at `origin` may use the relying party's passkeys."""
    parts = urlsplit(origin)
    host = parts.hostname or ""
    same_site = host == relying_party or host.endswith(f".{relying_party}")
    local = host == "localhost" or host.endswith(".localhost")
    secure = parts.scheme == "https" or (parts.scheme == "http" and local)
    return same_site and secure and not parts.path


def _user_of(access_token: str) -> tuple[CognitoIdpBackend, CognitoIdpUserPool, str]:
    for regions in cognitoidp_backends.values():
        for region, backend in regions.items():
            if region == "global":
                continue
            for pool in backend.user_pools.values():
                if access_token in pool.access_tokens:  # named as signed in: its email, here
                    return backend, pool, pool._get_user(pool.access_tokens[access_token][1]).username
    raise NotAuthorizedError("Invalid Access Token")


def _pool_of_client(client_id: str) -> tuple[CognitoIdpBackend, CognitoIdpUserPool]:
    for regions in cognitoidp_backends.values():
        for region, backend in regions.items():
            if region != "global":
                for pool in backend.user_pools.values():
                    if client_id in pool.clients:
                        return backend, pool
    raise ResourceNotFoundError(client_id)


def _configuration(pool_id: str) -> dict[str, str]:
    found = STATE.configurations.get(pool_id)
    if not found or not found.get("RelyingPartyId"):
        raise WebAuthnError("WebAuthnNotEnabledException", "WebAuthn is not enabled for this user pool.")
    return found


def _user_id(pool: CognitoIdpUserPool, username: str) -> bytes:
    user = pool._get_user(username)
    return str(user.id).encode()


def _checked_origin(client_data_b64: Any, relying_party: str) -> str:
    try:
        origin = parse_client_data_json(base64url_to_bytes(str(client_data_b64))).origin
    except (ValueError, TypeError, WebAuthnException) as error:
        raise InvalidParameterException(f"The credential's clientDataJSON is not valid: {error}") from error
    if not allowed_origin(origin, relying_party):
        raise WebAuthnError("WebAuthnOriginNotAllowedException", f"Origin {origin} is not allowed.")
    return origin


def _response_field(credential: Any, name: str) -> Any:
    if not isinstance(credential, dict) or not isinstance(credential.get("response"), dict):
        raise InvalidParameterException("The credential is not a WebAuthn credential.")
    return credential["response"].get(name)


def start_web_authn_registration(self: CognitoIdpResponse) -> ActionResult:
    _, pool, username = _user_of(self._get_param("AccessToken"))
    configuration = _configuration(pool.id)
    with STATE.lock:
        existing = STATE.credentials.get((pool.id, username), [])
        if len(existing) >= MAX_CREDENTIALS:
            raise WebAuthnError("LimitExceededException", "Too many passkeys for this user.")
        email = pool._get_user(username).attribute_lookup.get("email", username)
        options = generate_registration_options(
            rp_id=configuration["RelyingPartyId"],
            rp_name=configuration["RelyingPartyId"],
            user_name=email,
            user_id=_user_id(pool, username),
            authenticator_selection=AuthenticatorSelectionCriteria(
                resident_key=ResidentKeyRequirement.REQUIRED,
                user_verification=UserVerificationRequirement(configuration.get("UserVerification", "preferred")),
            ),
            exclude_credentials=[PublicKeyCredentialDescriptor(id=each.credential_id) for each in existing],
        )
        STATE.registrations[(pool.id, username)] = Pending(
            pool.id, username, options.challenge, time.time() + CHALLENGE_SECONDS
        )
    return ActionResult({"CredentialCreationOptions": json.loads(options_to_json(options))})


def complete_web_authn_registration(self: CognitoIdpResponse) -> ActionResult:
    _, pool, username = _user_of(self._get_param("AccessToken"))
    configuration = _configuration(pool.id)
    credential = self._get_param("Credential")
    relying_party = configuration["RelyingPartyId"]
    with STATE.lock:
        pending = STATE.registrations.pop((pool.id, username), None)  # a challenge answers once
    if pending is None or pending.expires_at < time.time():
        raise WebAuthnError("WebAuthnChallengeNotFoundException", "No registration challenge is pending.")
    origin = _checked_origin(_response_field(credential, "clientDataJSON"), relying_party)
    try:
        verified = verify_registration_response(
            credential=credential,
            expected_challenge=pending.challenge,
            expected_rp_id=relying_party,
            expected_origin=origin,
            require_user_verification=configuration.get("UserVerification") == "required",
        )
    except (WebAuthnException, ValueError, TypeError, KeyError) as error:
        raise WebAuthnError("WebAuthnCredentialNotSupportedException", str(error)) from error
    with STATE.lock:
        stored = STATE.credentials.setdefault((pool.id, username), [])
        if any(each.credential_id == verified.credential_id for every in STATE.credentials.values() for each in every):
            raise WebAuthnError("WebAuthnCredentialNotSupportedException", "This credential is registered already.")
        transports = _response_field(credential, "transports") or []
        stored.append(
            StoredCredential(
                verified.credential_id,
                verified.credential_public_key,
                verified.sign_count,
                relying_party,
                [str(each) for each in transports] if isinstance(transports, list) else [],
                datetime.now(UTC),
            )
        )
    return EmptyResult()


def list_web_authn_credentials(self: CognitoIdpResponse) -> ActionResult:
    _, pool, username = _user_of(self._get_param("AccessToken"))
    with STATE.lock:
        stored = list(STATE.credentials.get((pool.id, username), []))
    return ActionResult({"Credentials": [each.described() for each in stored]})


def delete_web_authn_credential(self: CognitoIdpResponse) -> ActionResult:
    _, pool, username = _user_of(self._get_param("AccessToken"))
    credential_id = str(self._get_param("CredentialId") or "")
    with STATE.lock:
        stored = STATE.credentials.get((pool.id, username), [])
        kept = [each for each in stored if bytes_to_base64url(each.credential_id) != credential_id]
        if len(kept) == len(stored):
            raise ResourceNotFoundError("No such credential for this user.")
        STATE.credentials[(pool.id, username)] = kept
    return EmptyResult()


def _start_passkey_sign_in(self: CognitoIdpResponse) -> ActionResult:
    client_id = self._get_param("ClientId")
    parameters = self._get_param("AuthParameters") or {}
    backend, pool = _pool_of_client(client_id)
    if "ALLOW_USER_AUTH" not in (pool.clients[client_id].extended_config.get("ExplicitAuthFlows") or []):
        raise InvalidParameterException("USER_AUTH flow not enabled for this client")
    factors = ((pool.extended_config.get("Policies") or {}).get("SignInPolicy") or {}).get("AllowedFirstAuthFactors")
    configuration = _configuration(pool.id)
    if "WEB_AUTHN" not in (factors or []) or parameters.get("PREFERRED_CHALLENGE") != "WEB_AUTHN":
        return ActionResult({"ChallengeName": "SELECT_CHALLENGE", "Session": secrets.token_urlsafe(32)})
    user = backend.admin_get_user(pool.id, str(parameters.get("USERNAME", "")))  # UserNotFoundException
    with STATE.lock:
        stored = list(STATE.credentials.get((pool.id, user.username), []))
    session = secrets.token_urlsafe(48)
    if not stored:  # the preferred challenge is not this person's: Cognito offers the others
        return ActionResult(
            {"ChallengeName": "SELECT_CHALLENGE", "Session": session, "AvailableChallenges": ["PASSWORD"]}
        )
    options = generate_authentication_options(
        rp_id=configuration["RelyingPartyId"],
        allow_credentials=[PublicKeyCredentialDescriptor(id=each.credential_id) for each in stored],
        user_verification=UserVerificationRequirement(configuration.get("UserVerification", "preferred")),
    )
    with STATE.lock:
        STATE.sign_ins[session] = Pending(
            pool.id, user.username, options.challenge, time.time() + CHALLENGE_SECONDS, client_id
        )
    return ActionResult(
        {
            "ChallengeName": "WEB_AUTHN",
            "Session": session,
            "ChallengeParameters": {"CREDENTIAL_REQUEST_OPTIONS": options_to_json(options)},
        }
    )


def _finish_passkey_sign_in(self: CognitoIdpResponse) -> ActionResult:
    responses = self._get_param("ChallengeResponses") or {}
    with STATE.lock:
        pending = STATE.sign_ins.pop(str(self._get_param("Session") or ""), None)  # a session answers once
    if pending is None or pending.expires_at < time.time() or pending.client_id != self._get_param("ClientId"):
        raise NotAuthorizedError("Invalid session for the user, session is expired.")
    backend, pool = _pool_of_client(pending.client_id)
    if backend.admin_get_user(pool.id, str(responses.get("USERNAME", ""))).username != pending.username:
        raise NotAuthorizedError("Incorrect username for this session.")
    configuration = _configuration(pool.id)
    try:
        credential = json.loads(str(responses.get("CREDENTIAL", "")))
    except ValueError as error:
        raise InvalidParameterException("CREDENTIAL is not JSON.") from error
    origin = _checked_origin(_response_field(credential, "clientDataJSON"), configuration["RelyingPartyId"])
    with STATE.lock:
        stored = STATE.credentials.get((pool.id, pending.username), [])
        found = next((each for each in stored if bytes_to_base64url(each.credential_id) == credential.get("id")), None)
    if found is None:
        raise NotAuthorizedError("The credential is not one of this user's.")
    try:
        verified = verify_authentication_response(
            credential=credential,
            expected_challenge=pending.challenge,
            expected_rp_id=configuration["RelyingPartyId"],
            expected_origin=origin,
            credential_public_key=found.public_key,
            credential_current_sign_count=found.sign_count,
            require_user_verification=configuration.get("UserVerification") == "required",
        )
    except (WebAuthnException, ValueError, TypeError, KeyError) as error:
        raise NotAuthorizedError(f"The passkey's answer is not valid: {error}") from error
    with STATE.lock:
        found.sign_count = verified.new_sign_count
    return ActionResult(backend._log_user_in(pool, pool.clients[pending.client_id], pending.username))


def install() -> None:
    """Teach moto's Cognito (in this process, for every account and region) the operations above."""
    if getattr(CognitoIdpResponse, "_passkeys_installed", False):
        return
    original_initiate = CognitoIdpResponse.initiate_auth
    original_respond = CognitoIdpResponse.respond_to_auth_challenge
    original_set_mfa = CognitoIdpResponse.set_user_pool_mfa_config
    original_get_mfa = CognitoIdpResponse.get_user_pool_mfa_config

    def initiate_auth(self: CognitoIdpResponse) -> ActionResult:
        if self._get_param("AuthFlow") == "USER_AUTH":
            return _start_passkey_sign_in(self)
        return original_initiate(self)

    def respond_to_auth_challenge(self: CognitoIdpResponse) -> ActionResult:
        if self._get_param("ChallengeName") == "WEB_AUTHN":
            return _finish_passkey_sign_in(self)
        return original_respond(self)

    def set_user_pool_mfa_config(self: CognitoIdpResponse) -> ActionResult:
        given = self._get_param("WebAuthnConfiguration")
        if isinstance(given, dict):
            with STATE.lock:
                STATE.configurations[self._get_param("UserPoolId")] = {
                    "RelyingPartyId": str(given.get("RelyingPartyId", "")),
                    "UserVerification": str(given.get("UserVerification", "preferred")),
                }
        answer = original_set_mfa(self)
        return _with_configuration(self, answer)

    def get_user_pool_mfa_config(self: CognitoIdpResponse) -> ActionResult:
        return _with_configuration(self, original_get_mfa(self))

    patched = {
        "initiate_auth": initiate_auth,
        "respond_to_auth_challenge": respond_to_auth_challenge,
        "set_user_pool_mfa_config": set_user_pool_mfa_config,
        "get_user_pool_mfa_config": get_user_pool_mfa_config,
        "start_web_authn_registration": start_web_authn_registration,
        "complete_web_authn_registration": complete_web_authn_registration,
        "list_web_authn_credentials": list_web_authn_credentials,
        "delete_web_authn_credential": delete_web_authn_credential,
        "_passkeys_installed": True,
    }
    for name, value in patched.items():
        setattr(CognitoIdpResponse, name, value)


def _with_configuration(self: CognitoIdpResponse, answer: ActionResult) -> ActionResult:
    configuration = STATE.configurations.get(self._get_param("UserPoolId"))
    if configuration is None:
        return answer
    return ActionResult({**(answer.result or {}), "WebAuthnConfiguration": configuration})  # type: ignore[dict-item]
