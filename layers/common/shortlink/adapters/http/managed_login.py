"""HTTP adapter: the user pool's managed login as the console's SSO callback calls it: its token
endpoint, which gives an ID token for a code and its PKCE verifier.

The URLs come from the stack's settings, never from a request. Short timeouts, no redirect
followed, no retry (the person starts again), a bounded read; an answer that is not what
Cognito sends becomes LoginServiceUnavailable, a refused code SsoRefused.
"""

import json
from typing import Any

import urllib3

from shortlink.sso.refusals import LoginServiceUnavailable, SsoRefused

CONNECT_TIMEOUT_SECONDS = 3.0
READ_TIMEOUT_SECONDS = 5.0
MAX_RESPONSE_BYTES = 64 * 1024
USER_AGENT = "Shortlink-Console/1"


class HttpManagedLogin:
    def __init__(self, login_url: str, client_id: str, callback_url: str) -> None:
        self._token_url = f"{login_url}/oauth2/token"
        self._client_id = client_id
        self._callback_url = callback_url
        timeout = urllib3.Timeout(connect=CONNECT_TIMEOUT_SECONDS, read=READ_TIMEOUT_SECONDS)
        self._http = urllib3.PoolManager(timeout=timeout, retries=False, headers={"user-agent": USER_AGENT})

    def _json(self, url: str, fields: dict[str, str]) -> tuple[int, Any]:
        try:
            response = self._http.request(
                "POST", url, fields=fields, encode_multipart=False, redirect=False, preload_content=False
            )
            body = response.read(MAX_RESPONSE_BYTES + 1)
            response.release_conn()
        except (urllib3.exceptions.HTTPError, OSError) as error:
            raise LoginServiceUnavailable(f"{url} did not answer: {type(error).__name__}") from error
        if len(body) > MAX_RESPONSE_BYTES:
            raise LoginServiceUnavailable(f"{url} answered more than {MAX_RESPONSE_BYTES} bytes")
        try:
            return response.status, json.loads(body)
        except ValueError:
            raise LoginServiceUnavailable(f"{url} answered {response.status} without JSON") from None

    def id_token(self, code: str, verifier: str) -> str:
        fields = {
            "grant_type": "authorization_code",
            "client_id": self._client_id,
            "code": code,
            "redirect_uri": self._callback_url,
            "code_verifier": verifier,
        }
        status, answer = self._json(self._token_url, fields)
        if status == 400 and isinstance(answer, dict) and answer.get("error") in {"invalid_grant", "invalid_request"}:
            raise SsoRefused(
                400, "The login service refused the sign-in code (used, expired or not this client's): start again."
            )
        if status != 200 or not isinstance(answer, dict) or not isinstance(answer.get("id_token"), str):
            raise LoginServiceUnavailable(f"the token endpoint answered {status} without an ID token")
        return str(answer["id_token"])
