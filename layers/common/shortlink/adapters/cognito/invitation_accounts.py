"""Invitations sent by Amazon Cognito: the invited person's account is created in the stack's
own user pool (AdminCreateUser) with a temporary password, and Cognito emails it, in the words
of the pool's custom message trigger (people.yaml), which reads the invitation from the call's
ClientMetadata. Cognito welcomes an address only once: one that has an account already is
answered "not sent", and the console tells the person another way."""

from botocore.exceptions import BotoCoreError, ClientError

from shortlink.adapters.botocore_clients import botocore_client
from shortlink.errors import StorageUnavailable
from shortlink.people.errors import InvalidMemberOption
from shortlink.people.model import Invitation
from shortlink.people.ports import WorkspaceNames

HAS_AN_ACCOUNT = {"UsernameExistsException", "AliasExistsException"}


def invitation_metadata(invitation: Invitation, link: str, workspace_name: str) -> dict[str, str]:
    """What the trigger writes the email from (functions/invitation_message reads these names)."""
    return {
        "link": link,
        "workspace": workspace_name or invitation.workspace_id,
        "role": invitation.role,
        "inviter": invitation.invited_by,
        "expires": f"{invitation.expires_at:%Y-%m-%d %H:%M}",
    }


class CognitoInvitationMessages:
    def __init__(self, user_pool_id: str, names: WorkspaceNames) -> None:
        self._pool = user_pool_id
        self._names = names  # the email names the workspace as its members see it
        # The pool's own region (its id's prefix), as for sign-in: the home region's pool.
        self._client = botocore_client("cognito-idp", region_name=user_pool_id.partition("_")[0] or None)

    def send(self, invitation: Invitation, link: str) -> bool:
        name = self._names.names_of([invitation.workspace_id]).get(invitation.workspace_id, "")
        try:
            self._client.admin_create_user(
                UserPoolId=self._pool,
                Username=invitation.email,
                # The email reaches the address it verifies: the person signs in with it at once.
                UserAttributes=[
                    {"Name": "email", "Value": invitation.email},
                    {"Name": "email_verified", "Value": "true"},
                ],
                DesiredDeliveryMediums=["EMAIL"],
                ClientMetadata=invitation_metadata(invitation, link, name),
            )
        except ClientError as error:
            code = str(error.response.get("Error", {}).get("Code", ""))
            if code in HAS_AN_ACCOUNT:
                return False
            if code == "InvalidParameterException":
                message = str(error.response.get("Error", {}).get("Message", ""))
                raise InvalidMemberOption("email", f"email: the user pool refuses this address ({message})") from error
            raise StorageUnavailable(f"invitation not sent: {code or error}") from error
        except BotoCoreError as error:
            raise StorageUnavailable(f"invitation not sent: {error}") from error
        return True
