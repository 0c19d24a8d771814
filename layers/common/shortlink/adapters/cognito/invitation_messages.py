"""How an invitation reaches the invited person: by email through Amazon SES (deployed, from
the address the stack's PeopleInvitationSender names), or printed to the local stack's output."""

from botocore.exceptions import BotoCoreError, ClientError

from shortlink.adapters.botocore_clients import botocore_client
from shortlink.errors import StorageUnavailable
from shortlink.people.model import Invitation


def _text(invitation: Invitation, link: str) -> str:
    return (
        f"{invitation.invited_by} invites you to a Shortlink workspace as {invitation.role}.\n"
        f"Open this link to sign in or sign up and join (it works once, until "
        f"{invitation.expires_at:%Y-%m-%d %H:%M} UTC):\n{link}\n"
    )


class SesInvitationMessages:
    def __init__(self, sender: str) -> None:
        self._sender = sender
        self._client = botocore_client("sesv2")

    def send(self, invitation: Invitation, link: str) -> bool:
        content = {
            "Simple": {
                "Subject": {"Data": "You are invited to a Shortlink workspace"},
                "Body": {"Text": {"Data": _text(invitation, link)}},
            }
        }
        try:
            self._client.send_email(
                FromEmailAddress=self._sender, Destination={"ToAddresses": [invitation.email]}, Content=content
            )
        except (BotoCoreError, ClientError) as error:
            raise StorageUnavailable(f"invitation not sent: {error}") from error
        return True


class PrintedInvitationMessages:
    """`make dev`: the message on the local stack's output, where a developer (or a test) reads it."""

    def send(self, invitation: Invitation, link: str) -> bool:
        print(f"Invitation email to {invitation.email}:\n{_text(invitation, link)}", flush=True)
        return True
