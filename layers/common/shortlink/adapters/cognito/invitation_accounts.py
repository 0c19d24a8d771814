"""Invitations sent by Amazon Cognito: the invited person's account is created in the stack's
own user pool (AdminCreateUser) with a temporary password, and Cognito emails it, in the words
of the pool's custom message trigger (people.yaml), which reads the invitation from the call's
ClientMetadata. An account Cognito made for an earlier invitation and never used (its temporary
password not yet changed) is sent the invitation again, with a new temporary password; any other
account is answered "not sent", and the console tells the person another way."""

from botocore.exceptions import BotoCoreError, ClientError

from shortlink.adapters.botocore_clients import botocore_client
from shortlink.errors import StorageUnavailable
from shortlink.people.errors import InvalidMemberOption
from shortlink.people.model import Invitation
from shortlink.people.ports import WorkspaceNames

HAS_AN_ACCOUNT = {"UsernameExistsException", "AliasExistsException"}
UNUSED = "FORCE_CHANGE_PASSWORD"  # made by an invitation, never signed in to


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
        metadata = invitation_metadata(invitation, link, name)
        try:
            self._create(invitation.email, metadata)
        except ClientError as error:
            if _code(error) not in HAS_AN_ACCOUNT:
                raise _domain_error(error) from error
            return self._send_again(invitation.email, metadata)
        except BotoCoreError as error:
            raise StorageUnavailable(f"invitation not sent: {error}") from error
        return True

    def _create(self, email: str, metadata: dict[str, str]) -> None:
        self._client.admin_create_user(
            UserPoolId=self._pool,
            Username=email,
            # The email reaches the address it verifies: the person signs in with it at once.
            UserAttributes=[{"Name": "email", "Value": email}, {"Name": "email_verified", "Value": "true"}],
            DesiredDeliveryMediums=["EMAIL"],
            ClientMetadata=metadata,
        )

    def _send_again(self, email: str, metadata: dict[str, str]) -> bool:
        """An account never used gets this invitation with a new temporary password (RESEND);
        False for one in use, which Cognito welcomes no more."""
        try:
            if self._client.admin_get_user(UserPoolId=self._pool, Username=email).get("UserStatus") != UNUSED:
                return False
            self._client.admin_create_user(
                UserPoolId=self._pool,
                Username=email,
                MessageAction="RESEND",
                DesiredDeliveryMediums=["EMAIL"],
                ClientMetadata=metadata,
            )
        except ClientError as error:
            if _code(error) in ("UnsupportedUserStateException", "UserNotFoundException"):  # changed meanwhile
                return False
            raise _domain_error(error) from error
        except BotoCoreError as error:
            raise StorageUnavailable(f"invitation not sent: {error}") from error
        return True


def _code(error: ClientError) -> str:
    return str(error.response.get("Error", {}).get("Code", ""))


def _domain_error(error: ClientError) -> Exception:
    if _code(error) == "InvalidParameterException":
        message = str(error.response.get("Error", {}).get("Message", ""))
        return InvalidMemberOption("email", f"email: the user pool refuses this address ({message})")
    return StorageUnavailable(f"invitation not sent: {_code(error) or error}")
