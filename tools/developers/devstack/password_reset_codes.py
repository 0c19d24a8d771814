"""`make dev` (and the tests): the embedded moto made to do what Cognito does when a person has
forgotten their password. moto's own ForgotPassword sends nothing, takes any code not of its
own form and checks no password policy; here ForgotPassword "emails" a 6-digit code valid for
an hour (printed to the stack's output, as invitations are), ConfirmForgotPassword takes only
that code, once, and at most MAX_WRONG_CODES wrong ones before it is spent, checks the pool's
password policy, and answers an unknown address as a wrong code (the client's
PreventUserExistenceErrors: ForgotPassword answers an unknown address as a known one).

Not exercised by it: Cognito's own email and its wording, its exact limits on codes and
requests (LimitExceededException), and whether it checks the policy before the code."""

import secrets
import time
from dataclasses import dataclass
from typing import Any

CODE_LIFETIME_SECONDS = 3600
MAX_WRONG_CODES = 5


@dataclass
class SentCode:
    code: str
    expires_at: float
    wrong: int = 0


SENT: dict[tuple[str, str], SentCode] = {}  # (client id, username): the last code sent


def _pool_and_user(response: Any, client_id: str, username: str) -> tuple[Any, Any, Any]:
    from moto.cognitoidp.models import cognitoidp_backends, find_account_region_by_value

    account, region = find_account_region_by_value(
        "client_id", client_id, fallback=(response.current_account, response.region)
    )
    backend = cognitoidp_backends[account][region]
    pool = next((each for each in backend.user_pools.values() if client_id in each.clients), None)
    return backend, pool, pool._get_user(username) if pool else None


def forgot_password(self: Any) -> Any:
    from moto.core.responses import ActionResult

    client_id, username = self._get_param("ClientId"), self._get_param("Username")
    _, _, user = _pool_and_user(self, client_id, username)
    if user is not None:
        code = f"{secrets.randbelow(10**6):06d}"
        SENT[(client_id, username)] = SentCode(code, time.time() + CODE_LIFETIME_SECONDS)
        print(f"Password reset email to {username} (by the user pool): your code is {code}\n", flush=True)
    masked = f"{username[:1]}***@{username.partition('@')[2] or '***'}"
    details = {"Destination": masked, "DeliveryMedium": "EMAIL", "AttributeName": "email"}
    return ActionResult({"CodeDeliveryDetails": details})


def confirm_forgot_password(self: Any) -> Any:
    from moto.cognitoidp.exceptions import CodeMismatchException, ExpiredCodeException
    from moto.core.responses import EmptyResult

    client_id, username = self._get_param("ClientId"), self._get_param("Username")
    backend, pool, user = _pool_and_user(self, client_id, username)
    sent = SENT.get((client_id, username))
    if user is None or sent is None:
        raise CodeMismatchException("Invalid verification code provided, please try again.")
    if time.time() >= sent.expires_at or sent.wrong >= MAX_WRONG_CODES:
        SENT.pop((client_id, username), None)
        raise ExpiredCodeException("Invalid code provided, please request a code again.")
    if not secrets.compare_digest(sent.code, str(self._get_param("ConfirmationCode"))):
        sent.wrong += 1
        raise CodeMismatchException("Invalid verification code provided, please try again.")
    # The pool's policy checked (InvalidPasswordException), the password set, the account confirmed
    backend.admin_set_user_password(pool.id, username, self._get_param("Password"), True)
    del SENT[(client_id, username)]
    return EmptyResult()


def emulate_password_reset_codes() -> None:
    """Make the embedded moto (this process's) send and check reset codes as Cognito does."""
    from moto.cognitoidp.responses import CognitoIdpResponse

    CognitoIdpResponse.forgot_password = forgot_password  # type: ignore[method-assign]
    CognitoIdpResponse.confirm_forgot_password = confirm_forgot_password  # type: ignore[method-assign]
