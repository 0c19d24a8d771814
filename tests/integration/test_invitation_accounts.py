"""Invitations Amazon Cognito sends (adapters/cognito/invitation_accounts.py), against moto's
user pool made from people.yaml: the invited person's account is created with a temporary
password, its email verified, the invitation passed to the pool's trigger; an address that has
an account already is answered "not sent", and the pool's refusals become the domain's errors."""

from datetime import UTC, datetime, timedelta

import pytest

from shortlink import wiring as services
from shortlink.adapters.cognito.invitation_accounts import CognitoInvitationMessages
from shortlink.errors import StorageUnavailable
from shortlink.people.errors import InvalidMemberOption
from shortlink.people.model import Invitation
from tests.integration.invitation_calls import recorded_account_creations
from tests.integration.people import user_pool_in

pytestmark = pytest.mark.one_account_per_module
LINK = "https://sho.rt/console/invitations/secret-token"
NOW = datetime(2027, 1, 15, 9, 30, tzinfo=UTC)


def invitation(email: str) -> Invitation:
    return Invitation("inv-1", "ws-123", email, "editor", "owner@example.com", NOW, NOW + timedelta(days=7))


@pytest.fixture
def pool(aws, template, monkeypatch):
    return user_pool_in(template, monkeypatch)


def sender_for(user_pool_id: str) -> CognitoInvitationMessages:
    return CognitoInvitationMessages(user_pool_id, services.workspace_names())


def test_the_invited_persons_account_is_created_and_cognito_asked_to_email_them(pool, monkeypatch):
    calls = recorded_account_creations(monkeypatch)
    sender = sender_for(pool.local.user_pool_id)
    assert sender.send(invitation("ana@example.com"), LINK) is True
    # One call: the email as user name and verified attribute, delivered by email, the invitation
    # for the trigger in ClientMetadata
    assert calls == [
        {
            "UserPoolId": pool.local.user_pool_id,
            "Username": "ana@example.com",
            "UserAttributes": [
                {"Name": "email", "Value": "ana@example.com"},
                {"Name": "email_verified", "Value": "true"},
            ],
            "DesiredDeliveryMediums": ["EMAIL"],
            "ClientMetadata": {
                "link": LINK,
                "workspace": "ws-123",
                "role": "editor",
                "inviter": "owner@example.com",
                "expires": "2027-01-22 09:30",
            },
        }
    ]
    assert "MessageAction" not in calls[0]  # not suppressed: Cognito sends the welcome
    user = pool.cognito.admin_get_user(UserPoolId=pool.local.user_pool_id, Username="ana@example.com")
    assert user["UserStatus"] == "FORCE_CHANGE_PASSWORD"
    attributes = {each["Name"]: each["Value"] for each in user["UserAttributes"]}
    assert (attributes["email"], attributes["email_verified"]) == ("ana@example.com", "true")


def test_an_address_with_an_account_is_not_sent_and_its_account_is_left_alone(pool, monkeypatch):
    person, password = pool.person("known@example.com")
    calls = recorded_account_creations(monkeypatch)
    sender = sender_for(pool.local.user_pool_id)
    assert sender.send(invitation("known@example.com"), LINK) is False
    assert len(calls) == 1
    users = pool.cognito.list_users(UserPoolId=pool.local.user_pool_id)["Users"]
    assert len(users) == 1
    assert users[0]["UserStatus"] == "CONFIRMED"
    # Their password still signs them in
    assert pool.access_token(person.email, password)


def test_an_address_the_pool_refuses_is_a_clear_error_and_no_account_is_made(pool):
    sender = sender_for(pool.local.user_pool_id)
    with pytest.raises(InvalidMemberOption, match="email: the user pool refuses this address"):
        sender.send(invitation("not-an-address"), LINK)
    assert pool.cognito.list_users(UserPoolId=pool.local.user_pool_id)["Users"] == []


def test_a_pool_that_cannot_be_reached_is_unavailable_not_a_crash(pool):
    sender = sender_for("us-east-1_NoSuchPool")
    with pytest.raises(StorageUnavailable, match="invitation not sent: ResourceNotFoundException"):
        sender.send(invitation("ana@example.com"), LINK)


def test_a_named_workspace_is_called_by_its_name_in_the_email(pool, monkeypatch):
    services.workspace_names().rename("ws-123", "Acme <Marketing>", NOW)
    calls = recorded_account_creations(monkeypatch)
    assert sender_for(pool.local.user_pool_id).send(invitation("bo@example.com"), LINK) is True
    # As stored: the trigger escapes it in the email
    assert calls[0]["ClientMetadata"]["workspace"] == "Acme <Marketing>"


def test_an_account_an_earlier_invitation_made_and_never_used_is_sent_this_one_again(pool, monkeypatch):
    calls = recorded_account_creations(monkeypatch)
    sender = sender_for(pool.local.user_pool_id)
    assert sender.send(invitation("cleo@example.com"), LINK) is True
    expiry = NOW + timedelta(days=7)
    later = Invitation("inv-2", "ws-456", "cleo@example.com", "viewer", "admin@example.com", NOW, expiry)
    # Cognito resends its welcome with a new temporary password, in this invitation's words
    assert sender.send(later, f"{LINK}-2") is True
    assert [call.get("MessageAction") for call in calls] == [None, None, "RESEND"]
    resent = calls[-1]
    assert resent["Username"] == "cleo@example.com"
    assert resent["DesiredDeliveryMediums"] == ["EMAIL"]
    assert (resent["ClientMetadata"]["link"], resent["ClientMetadata"]["workspace"]) == (f"{LINK}-2", "ws-456")
    # (moto answers RESEND by making a second user of the address; Cognito resets the one it has)
