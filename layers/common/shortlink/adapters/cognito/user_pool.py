"""The Cognito user pool (botocore's cognito-idp), for the console's sign-in: password, TOTP,
a new password, sign-up by invitation. The pool's tokens never leave this module: a sign-in
reads the person (GetUser) with its access token and drops them all."""

from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from shortlink.adapters.botocore_clients import botocore_client
from shortlink.errors import ShortlinkError, StorageUnavailable
from shortlink.people.errors import InvalidMemberOption, SignInRefused, WeakPassword
from shortlink.people.model import Person
from shortlink.people.ports import Challenge

REFUSALS = {
    "NotAuthorizedException",
    "UserNotFoundException",
    "CodeMismatchException",
    "ExpiredCodeException",
    "EnableSoftwareTokenMFAException",
    "ResourceNotFoundException",  # a challenge's session unknown or spent
    "UserNotConfirmedException",
    "PasswordResetRequiredException",
}
CHALLENGES = {"SOFTWARE_TOKEN_MFA": "totp", "NEW_PASSWORD_REQUIRED": "new_password"}
DEVICE_NAME = "Shortlink console"


def _code(error: ClientError) -> str:
    return str(error.response.get("Error", {}).get("Code", ""))


class CognitoUserPool:
    def __init__(self, user_pool_id: str, client_id: str) -> None:
        self._pool = user_pool_id
        self._client_id = client_id
        # The pool's own region (its id's prefix): with several regions, each region's console
        # signs people in at the home region's pool.
        self._client = botocore_client("cognito-idp", region_name=user_pool_id.partition("_")[0] or None)

    def _call(self, operation: str, **parameters: Any) -> dict[str, Any]:
        try:
            answer: dict[str, Any] = getattr(self._client, operation)(**parameters)
        except ClientError as error:
            code = _code(error)
            if code in REFUSALS:
                raise SignInRefused(code) from error
            if code == "InvalidPasswordException":
                raise WeakPassword(error.response.get("Error", {}).get("Message", "password too weak")) from error
            if code in ("UsernameExistsException", "AliasExistsException"):
                raise InvalidMemberOption("email", "email: this address has an account already: sign in") from error
            if code == "InvalidParameterException":
                raise InvalidMemberOption("form", str(error.response.get("Error", {}).get("Message"))) from error
            raise StorageUnavailable(f"user pool: {code or error}") from error
        except BotoCoreError as error:
            raise StorageUnavailable(f"user pool: {error}") from error
        return answer

    def _outcome(self, email: str, answer: dict[str, Any]) -> Person | Challenge:
        if "AuthenticationResult" in answer:
            return self._person(answer["AuthenticationResult"]["AccessToken"])
        kind = CHALLENGES.get(str(answer.get("ChallengeName")))
        if kind is None:  # MFA_SETUP and the like: the pool asks what this console does not offer
            raise SignInRefused(str(answer.get("ChallengeName")))
        return Challenge(kind, email, str(answer["Session"]))  # type: ignore[arg-type]

    def _person(self, access_token: str) -> Person:
        user = self._call("get_user", AccessToken=access_token)
        attributes = {each["Name"]: each["Value"] for each in user.get("UserAttributes", [])}
        return Person(attributes.get("sub", ""), attributes.get("email", "").lower())

    def _access_token(self, email: str, password: str) -> str:
        answer = self._call(
            "initiate_auth",
            ClientId=self._client_id,
            AuthFlow="USER_PASSWORD_AUTH",
            AuthParameters={"USERNAME": email, "PASSWORD": password},
        )
        if "AuthenticationResult" not in answer:  # TOTP on already: nothing to set up
            raise SignInRefused("TOTP is on already")
        return str(answer["AuthenticationResult"]["AccessToken"])

    def sign_in(self, email: str, password: str) -> Person | Challenge:
        answer = self._call(
            "initiate_auth",
            ClientId=self._client_id,
            AuthFlow="USER_PASSWORD_AUTH",
            AuthParameters={"USERNAME": email, "PASSWORD": password},
        )
        return self._outcome(email, answer)

    def answer(self, challenge: Challenge, answer: str) -> Person | Challenge:
        name, field = (
            ("SOFTWARE_TOKEN_MFA", "SOFTWARE_TOKEN_MFA_CODE")
            if challenge.kind == "totp"
            else ("NEW_PASSWORD_REQUIRED", "NEW_PASSWORD")
        )
        reply = self._call(
            "respond_to_auth_challenge",
            ClientId=self._client_id,
            ChallengeName=name,
            Session=challenge.session,
            ChallengeResponses={"USERNAME": challenge.email, field: answer},
        )
        return self._outcome(challenge.email, reply)

    def sign_up(self, email: str, password: str) -> Person:
        self._call(
            "admin_create_user",
            UserPoolId=self._pool,
            Username=email,
            UserAttributes=[{"Name": "email", "Value": email}, {"Name": "email_verified", "Value": "true"}],
            MessageAction="SUPPRESS",  # the invitation's link was the message
        )
        try:
            self._call(
                "admin_set_user_password", UserPoolId=self._pool, Username=email, Password=password, Permanent=True
            )
        except ShortlinkError:  # a weak password, a busy pool: nothing half-made is left
            self._call("admin_delete_user", UserPoolId=self._pool, Username=email)
            raise
        signed = self.sign_in(email, password)
        if not isinstance(signed, Person):
            raise SignInRefused("the new account asks for more than a password")
        return signed

    def start_totp(self, email: str, password: str) -> str:
        answer = self._call("associate_software_token", AccessToken=self._access_token(email, password))
        return str(answer["SecretCode"])

    def confirm_totp(self, email: str, password: str, code: str) -> None:
        token = self._access_token(email, password)
        verified = self._call("verify_software_token", AccessToken=token, UserCode=code, FriendlyDeviceName=DEVICE_NAME)
        if verified.get("Status") != "SUCCESS":
            raise SignInRefused("code")
        self._call(
            "set_user_mfa_preference",
            AccessToken=token,
            SoftwareTokenMfaSettings={"Enabled": True, "PreferredMfa": True},
        )
