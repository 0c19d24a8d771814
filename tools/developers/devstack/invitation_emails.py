"""`make dev` with SHORTLINK_INVITATIONS=cognito: invitations go as deployed, through the user
pool (the console's AdminCreateUser), and the embedded moto, which sends no email and runs no
Lambda trigger, is made to do what Cognito does for the pool's custom message trigger: it gives
the new account a temporary password, asks the trigger (people.yaml's function, in this process)
for the email and prints it, the password and user name in place of their placeholders.

Without it (the default) the console prints its own plain invitation and makes no account."""

import os
from collections.abc import Callable
from typing import Any

from tools.developers.devstack.lambda_runtime import load_handler
from tools.developers.devstack.local_env import own_environment
from tools.developers.devstack.people import POOL_TYPE, dev_password
from tools.developers.devstack.template import LocalTemplate

INVITATIONS_VARIABLE = "SHORTLINK_INVITATIONS"
COGNITO_MESSAGE = "Your username is {username} and temporary password is {####}."
COGNITO_SUBJECT = "Your temporary password"
Trigger = Callable[[dict[str, Any], Any], dict[str, Any]]


def pool_sends_invitations() -> bool:
    return os.environ.get(INVITATIONS_VARIABLE) == "cognito"


def custom_message_trigger(template: LocalTemplate) -> Trigger:
    """The handler of the function the pool's LambdaConfig names (resolved to an ARN ending in its id)."""
    (pool,) = template.resources(POOL_TYPE).values()
    name = str(pool["LambdaConfig"]["CustomMessage"]).rsplit(":", 1)[-1]
    function = template.functions[name]
    code = template.root / (function.codeuri or "")
    handler: Trigger = load_handler(code, function.handler or "", f"devstack_trigger_{name}", own_environment(function))
    return handler


def invitation_event(pool_id: str, email: str, metadata: dict[str, str]) -> dict[str, Any]:
    """The event Cognito gives the trigger for AdminCreateUser (its documented shape)."""
    return {
        "version": "1",
        "triggerSource": "CustomMessage_AdminCreateUser",
        "region": pool_id.partition("_")[0],
        "userPoolId": pool_id,
        "userName": email,
        "callerContext": {"awsSdkVersion": "devstack", "clientId": "CLIENT_ID_NOT_APPLICABLE"},
        "request": {
            "userAttributes": {"email": email, "email_verified": "true"},
            "codeParameter": "{####}",
            "linkParameter": "{##Click Here##}",
            "usernameParameter": "{username}",
            "clientMetadata": metadata,
        },
        "response": {"smsMessage": None, "emailMessage": None, "emailSubject": None},
    }


def deliver(backend: Any, pool_id: str, email: str, metadata: dict[str, str], trigger: Trigger) -> None:
    """What Cognito does after AdminCreateUser: a temporary password, the trigger's email, sent."""
    password = dev_password()
    backend.admin_set_user_password(pool_id, email, password, False)
    answer = trigger(invitation_event(pool_id, email, metadata), None)
    # Cognito's own words where the trigger leaves the message as it is
    message = str(answer["response"].get("emailMessage") or COGNITO_MESSAGE)
    subject = str(answer["response"].get("emailSubject") or COGNITO_SUBJECT)
    body = message.replace("{####}", password).replace("{username}", email)
    print(f"Invitation email to {email} (by the user pool): {subject}\n{body}\n", flush=True)


def emulate_invitation_emails(template: LocalTemplate) -> dict[str, str]:
    """Make the embedded moto (this process's) deliver invitation emails as Cognito does; the
    console's variables that send invitations through the pool."""
    from moto.cognitoidp.responses import CognitoIdpResponse

    trigger = custom_message_trigger(template)
    create_user = CognitoIdpResponse.admin_create_user

    def admin_create_user(self: Any) -> Any:
        answer = create_user(self)
        if self._get_param("MessageAction") != "SUPPRESS":  # the console's sign-up sends nothing
            metadata = self._get_param("ClientMetadata") or {}
            deliver(self.backend, self._get_param("UserPoolId"), self._get_param("Username"), metadata, trigger)
        return answer

    CognitoIdpResponse.admin_create_user = admin_create_user  # type: ignore[method-assign]
    return {"PEOPLE_PRINT_INVITATIONS": "false", "PEOPLE_POOL_SENDS_INVITATIONS": "true"}
