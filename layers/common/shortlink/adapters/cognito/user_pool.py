"""The Cognito user pool (botocore's cognito-idp), for the console's sign-in: password, TOTP,
a new password, passkeys, sign-up by invitation. The pool's tokens never leave this module: a
sign-in reads the person (GetUser) with its access token and drops them all."""

import json
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from shortlink.adapters.botocore_clients import botocore_client
from shortlink.errors import ShortlinkError, StorageUnavailable
from shortlink.people.errors import (
    InvalidMemberOption,
    PasskeyRefused,
    PasskeysUnavailable,
    SignInRefused,
    WeakPassword,
    WrongCode,
)
from shortlink.people.model import Person
from shortlink.people.ports import Challenge, Passkey, PasskeyChallenge, PasswordRule

REFUSALS = {
    "NotAuthorizedException",
    "UserNotFoundException",
    "CodeMismatchException",
    "ExpiredCodeException",
    "EnableSoftwareTokenMFAException",
    "ResourceNotFoundException",  # a challenge's session unknown or spent
    "UserNotConfirmedException",
    "PasswordResetRequiredException",
    "TooManyFailedAttemptsException",
}
# What ForgotPassword may answer about the address rather than the pool: answered alike, so that
# nobody learns whether an account exists (as the client's PreventUserExistenceErrors does).
RESET_REQUEST_ANSWERED_ALIKE = {
    "UserNotFoundException",
    "NotAuthorizedException",
    "InvalidParameterException",  # an account without a verified email
    "LimitExceededException",
    "CodeDeliveryFailureException",
}
CHALLENGES = {"SOFTWARE_TOKEN_MFA": "totp", "NEW_PASSWORD_REQUIRED": "new_password"}
PASSKEYS_OFF = {"WebAuthnNotEnabledException", "WebAuthnConfigurationMissingException"}
PASSKEY_REFUSALS = {
    "WebAuthnChallengeNotFoundException",
    "WebAuthnRelyingPartyMismatchException",
    "WebAuthnOriginNotAllowedException",
    "WebAuthnCredentialNotSupportedException",
    "WebAuthnClientMismatchException",
    "LimitExceededException",  # a person's passkeys are at most 20
}
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
        self._rule: PasswordRule | None = None

    def _call(self, operation: str, **parameters: Any) -> dict[str, Any]:
        try:
            answer: dict[str, Any] = getattr(self._client, operation)(**parameters)
        except ClientError as error:
            code = _code(error)
            if code == "CodeMismatchException" and operation == "respond_to_auth_challenge":
                raise WrongCode(code) from error  # the pool's session stays open for another code
            if code in REFUSALS:
                raise SignInRefused(code) from error
            if code in PASSKEYS_OFF:
                raise PasskeysUnavailable(code) from error
            if code in PASSKEY_REFUSALS:
                raise PasskeyRefused(str(error.response.get("Error", {}).get("Message") or code)) from error
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

    def person_of(self, access_token: str) -> Person:
        return self._person(access_token)

    def _person(self, access_token: str) -> Person:
        user = self._call("get_user", AccessToken=access_token)
        attributes = {each["Name"]: each["Value"] for each in user.get("UserAttributes", [])}
        return Person(attributes.get("sub", ""), attributes.get("email", "").lower())

    def _access_token(self, email: str, password: str, code: str = "") -> str:
        """A token to act for the person with: their password, and `code` where the pool asks
        a TOTP code (without one, SignInRefused: TOTP is on)."""
        answer = self._call(
            "initiate_auth",
            ClientId=self._client_id,
            AuthFlow="USER_PASSWORD_AUTH",
            AuthParameters={"USERNAME": email, "PASSWORD": password},
        )
        if "AuthenticationResult" not in answer and answer.get("ChallengeName") == "SOFTWARE_TOKEN_MFA" and code:
            answer = self._call(
                "respond_to_auth_challenge",
                ClientId=self._client_id,
                ChallengeName="SOFTWARE_TOKEN_MFA",
                Session=answer["Session"],
                ChallengeResponses={"USERNAME": email, "SOFTWARE_TOKEN_MFA_CODE": code},
            )
        if "AuthenticationResult" not in answer:  # TOTP on and no code given
            raise SignInRefused("TOTP is on")
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

    def _admin_user(self, email: str) -> dict[str, Any] | None:
        try:
            return self._call("admin_get_user", UserPoolId=self._pool, Username=email)
        except SignInRefused:  # UserNotFoundException
            return None

    def person_named(self, email: str) -> Person | None:
        """The pool's person of `email`, None if it has none (AdminGetUser)."""
        user = self._admin_user(email)
        if user is None:
            return None
        attributes = {each["Name"]: each["Value"] for each in user.get("UserAttributes", [])}
        return Person(attributes.get("sub", ""), attributes.get("email", email).lower())

    def totp_on(self, email: str) -> bool:
        """Whether the pool asks `email` a TOTP code at sign-in."""
        user = self._admin_user(email)
        return user is not None and "SOFTWARE_TOKEN_MFA" in user.get("UserMFASettingList", [])

    def turn_off_totp(self, email: str) -> None:
        """No TOTP code asked of `email` any more (the console re-authenticated them first)."""
        self._call(
            "admin_set_user_mfa_preference",
            UserPoolId=self._pool,
            Username=email,
            SoftwareTokenMfaSettings={"Enabled": False, "PreferredMfa": False},
        )

    def request_password_reset(self, email: str) -> None:
        """Ask the pool to send `email` a reset code (ForgotPassword); whether it has an account
        or not, the same: nothing raised about the address."""
        try:
            self._client.forgot_password(ClientId=self._client_id, Username=email)
        except ClientError as error:
            if _code(error) not in RESET_REQUEST_ANSWERED_ALIKE:
                raise StorageUnavailable(f"user pool: {_code(error) or error}") from error
        except BotoCoreError as error:
            raise StorageUnavailable(f"user pool: {error}") from error

    def reset_password(self, email: str, code: str, password: str) -> None:
        """A new password with the code the pool sent (ConfirmForgotPassword): SignInRefused for
        a wrong or spent code and an unknown address alike, WeakPassword with the pool's reason."""
        try:
            self._call(
                "confirm_forgot_password",
                ClientId=self._client_id,
                Username=email,
                ConfirmationCode=code,
                Password=password,
            )
        except PasskeyRefused as error:  # LimitExceededException: too many codes tried
            raise SignInRefused(str(error)) from error

    def end_pool_sessions(self, email: str) -> None:
        """Revoke every refresh token of `email` (AdminUserGlobalSignOut)."""
        self._call("admin_user_global_sign_out", UserPoolId=self._pool, Username=email)

    def password_rule(self) -> PasswordRule:
        """The pool's password policy (DescribeUserPool, read once per environment)."""
        if self._rule is None:
            policy = self._call("describe_user_pool", UserPoolId=self._pool)["UserPool"]["Policies"]["PasswordPolicy"]
            self._rule = PasswordRule(
                int(policy.get("MinimumLength", 8)),
                bool(policy.get("RequireUppercase")),
                bool(policy.get("RequireLowercase")),
                bool(policy.get("RequireNumbers")),
                bool(policy.get("RequireSymbols")),
            )
        return self._rule

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

    def start_passkey_registration(self, email: str, password: str, code: str = "") -> dict[str, Any]:
        token = self._access_token(email, password, code)
        answer = self._call("start_web_authn_registration", AccessToken=token)
        options: dict[str, Any] = answer["CredentialCreationOptions"]
        return options

    def complete_passkey_registration(
        self, email: str, password: str, credential: dict[str, Any], code: str = ""
    ) -> list[Passkey]:
        token = self._access_token(email, password, code)
        self._call("complete_web_authn_registration", AccessToken=token, Credential=credential)
        return self._passkeys(token)

    def passkeys(self, email: str, password: str, code: str = "") -> list[Passkey]:
        return self._passkeys(self._access_token(email, password, code))

    def _passkeys(self, token: str) -> list[Passkey]:
        answer = self._call("list_web_authn_credentials", AccessToken=token)
        return [
            Passkey(str(each["CredentialId"]), str(each.get("FriendlyCredentialName") or ""), each.get("CreatedAt"))
            for each in answer.get("Credentials", [])
        ]

    def remove_passkey(self, email: str, password: str, credential_id: str, code: str = "") -> list[Passkey]:
        token = self._access_token(email, password, code)
        try:
            self._call("delete_web_authn_credential", AccessToken=token, CredentialId=credential_id)
        except SignInRefused as error:  # ResourceNotFoundException: none of this person's
            raise PasskeyRefused("That passkey is not one of yours.") from error
        return self._passkeys(token)

    def start_passkey_sign_in(self, email: str) -> PasskeyChallenge:
        answer = self._call(
            "initiate_auth",
            ClientId=self._client_id,
            AuthFlow="USER_AUTH",
            AuthParameters={"USERNAME": email, "PREFERRED_CHALLENGE": "WEB_AUTHN"},
        )
        if answer.get("ChallengeName") != "WEB_AUTHN":  # no passkey of theirs: Cognito offers the rest
            raise SignInRefused(str(answer.get("ChallengeName")))
        options = answer.get("ChallengeParameters", {}).get("CREDENTIAL_REQUEST_OPTIONS", "")
        return PasskeyChallenge(Challenge("passkey", email, str(answer["Session"])), str(options))

    def finish_passkey_sign_in(self, challenge: Challenge, credential: dict[str, Any]) -> Person | Challenge:
        try:
            reply = self._call(
                "respond_to_auth_challenge",
                ClientId=self._client_id,
                ChallengeName="WEB_AUTHN",
                Session=challenge.session,
                ChallengeResponses={"USERNAME": challenge.email, "CREDENTIAL": json.dumps(credential)},
            )
        except (PasskeyRefused, InvalidMemberOption) as error:  # at sign-in, one refusal for all
            raise SignInRefused(str(error)) from error
        return self._outcome(challenge.email, reply)
