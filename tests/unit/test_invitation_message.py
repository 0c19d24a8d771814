"""The user pool's custom message trigger (functions/invitation_message): the invitation email
Cognito sends for an account the console creates, every value escaped, the link only if safe,
Cognito's placeholders kept; every other message left as Cognito writes it."""

import copy
import importlib.util
import re
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]
APP_FILE = "invitation_message/app.py"


def trigger() -> ModuleType:
    spec = importlib.util.spec_from_file_location("invitation_message_app", ROOT / "functions" / APP_FILE)
    assert spec
    assert spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


APP = trigger()
LINK = "https://sho.rt/console/invitations/tok3n-abc"


def event(source: str = "CustomMessage_AdminCreateUser", **metadata: str) -> dict[str, Any]:
    """The event Cognito sends (its documented shape), the console's ClientMetadata in it."""
    return {
        "version": "1",
        "triggerSource": source,
        "region": "eu-west-1",
        "userPoolId": "eu-west-1_Example",
        "userName": "0b7c9d3e-ffff-4e0e-9a6f-000000000001",
        "callerContext": {"awsSdkVersion": "aws-sdk-python-1.35", "clientId": "CLIENT_ID_NOT_APPLICABLE"},
        "request": {
            "userAttributes": {"email": "ana@example.com", "email_verified": "true"},
            "codeParameter": "{####}",
            "linkParameter": "{##Click Here##}",
            "usernameParameter": "{username}",
            "clientMetadata": {
                "link": LINK,
                "workspace": "ws-123",
                "role": "editor",
                "inviter": "owner@example.com",
                "expires": "2027-01-22 09:30",
                **metadata,
            },
        },
        "response": {"smsMessage": None, "emailMessage": None, "emailSubject": None},
    }


def test_the_invitation_email_names_everything_and_keeps_cognitos_placeholders():
    answer = APP.handler(event(), None)
    message = answer["response"]["emailMessage"]
    assert answer["response"]["emailSubject"] == "You are invited to a Shortlink workspace"
    # Cognito puts the user name and the temporary password where its placeholders are
    assert message.count("{####}") == 1
    assert message.count("{username}") == 1
    assert f'<a href="{LINK}">{LINK}</a>' in message
    for value in ("ws-123", "editor", "owner@example.com", "2027-01-22 09:30 UTC", "temporary password"):
        assert value in message
    assert len(message) < 20_000  # Cognito's limit for a message


def test_the_placeholders_are_the_ones_the_event_names():
    custom = event()
    custom["request"] |= {"codeParameter": "{####}", "usernameParameter": "{name-of-user}"}
    message = APP.handler(custom, None)["response"]["emailMessage"]
    assert "{name-of-user}" in message
    assert "{username}" not in message


def test_every_value_of_the_invitation_is_html_escaped():
    hostile = '<script>alert("x")</script>&<img src=x onerror=1>'
    answer = APP.handler(event(workspace=hostile, role=hostile, inviter=hostile, expires=hostile), None)
    message = answer["response"]["emailMessage"]
    assert "<script>" not in message
    assert "<img" not in message
    assert message.count("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&lt;img") == 4
    # Only the message's own tags remain
    assert set(re.findall(r"</?([a-z]+)", message)) == {"p", "strong", "a", "br"}


@pytest.mark.parametrize(
    "link",
    [
        "javascript:alert(1)",
        "http://sho.rt/console/invitations/t",  # plain http to a real host
        'https://sho.rt/console/invitations/t" onclick="alert(1)',
        "https://user@evil.example/console/invitations/t",
        "data:text/html,<b>hi</b>",
        "https://",
        "//evil.example/x",
        "https://sho.rt/\nBcc: x@example.com",
        "https://" + "a" * 3000 + ".example/",
        "",
    ],
)
def test_a_hostile_or_unsafe_link_is_left_out(link):
    message = APP.handler(event(link=link), None)["response"]["emailMessage"]
    assert "<a " not in message
    assert "href" not in message
    assert "javascript" not in message
    assert "evil" not in message
    # The account's details are still there: the person can open the console themselves
    assert "{####}" in message
    assert "{username}" in message


@pytest.mark.parametrize(
    "link", ["http://localhost:3000/console/invitations/t", "http://127.0.0.1:3000/console/invitations/t"]
)
def test_the_local_consoles_own_http_loopback_link_is_kept(link):
    assert f'href="{link}"' in APP.handler(event(link=link), None)["response"]["emailMessage"]


@pytest.mark.parametrize(
    "source",
    [
        "CustomMessage_SignUp",
        "CustomMessage_ResendCode",
        "CustomMessage_ForgotPassword",
        "CustomMessage_UpdateUserAttribute",
        "CustomMessage_VerifyUserAttribute",
        "CustomMessage_Authentication",
    ],
)
def test_every_other_message_is_returned_unchanged(source):
    original = event(source)
    assert APP.handler(copy.deepcopy(original), None) == original


def test_an_account_made_without_an_invitation_gets_cognitos_own_message():
    original = event()
    original["request"]["clientMetadata"] = {}
    assert APP.handler(copy.deepcopy(original), None) == original
    original["request"].pop("clientMetadata")
    assert APP.handler(copy.deepcopy(original), None) == original


@settings(deadline=None)  # a shared machine's load is no property of the message
@given(st.dictionaries(st.sampled_from(["link", "workspace", "role", "inviter", "expires"]), st.text(max_size=400)))
def test_any_metadata_gives_a_message_with_both_placeholders_and_no_tag_of_its_own(metadata):
    answer = APP.handler(event(**{"link": "", **metadata}), None)
    message = answer["response"]["emailMessage"]
    assert "{####}" in message
    assert "{username}" in message
    assert set(re.findall(r"<([a-zA-Z]+)", message)) <= {"p", "strong", "a", "br"}
    assert len(message) < 20_000
