"""Which ways the composition root sends invitations by (wiring.invitation_messages), from the
people settings: Cognito with the stack's own pool, then SES from a configured address; printed
in `make dev`; none (the inviter is shown the link) otherwise."""

import os

import pytest

from shortlink import wiring as services
from shortlink.adapters.cognito.invitation_accounts import CognitoInvitationMessages
from shortlink.adapters.cognito.invitation_messages import PrintedInvitationMessages, SesInvitationMessages

AWS = {
    "AWS_DEFAULT_REGION": "eu-west-1",
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
}  # no lookup
POOL = {"PEOPLE_USER_POOL_ID": "eu-west-1_Example", "PEOPLE_CLIENT_ID": "client123", "API_KEYS_TABLE": "keys", **AWS}
OWN_POOL = {**POOL, "PEOPLE_POOL_SENDS_INVITATIONS": "true"}
SES = {"PEOPLE_INVITATIONS_FROM": "invitations@example.com"}


@pytest.fixture
def environment(monkeypatch):
    for name in [*os.environ]:
        monkeypatch.delenv(name)
    services.reset()
    yield monkeypatch
    services.reset()


@pytest.mark.parametrize(
    ("env", "ways"),
    [
        (OWN_POOL, [CognitoInvitationMessages]),
        # An address of theirs has no welcome from Cognito: SES tells them, if it is configured
        ({**OWN_POOL, **SES}, [CognitoInvitationMessages, SesInvitationMessages]),
        # A brought pool (no trigger of ours): SES, or the link shown to the inviter
        ({**POOL, "PEOPLE_POOL_SENDS_INVITATIONS": "false", **SES}, [SesInvitationMessages]),
        ({**POOL, "PEOPLE_POOL_SENDS_INVITATIONS": "false"}, []),
        # `make dev`: moto sends no email and runs no trigger, the message is printed
        ({**OWN_POOL, **SES, "PEOPLE_PRINT_INVITATIONS": "true"}, [PrintedInvitationMessages]),
        # No pool at all: nothing Cognito could do
        ({"PEOPLE_POOL_SENDS_INVITATIONS": "true", **AWS}, []),
    ],
)
def test_the_ways_invitations_are_sent_follow_the_settings(environment, env, ways):
    for name, value in env.items():
        environment.setenv(name, value)
    assert [type(way) for way in services.invitation_messages()] == ways
