"""The console's check of a passkey's posted answer: WebAuthn's JSON encoding, bounded, reduced
to the fields WebAuthn defines; anything else refused naming what is wrong, never passed on."""

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from shortlink.console.passkey_credentials import MAX_CREDENTIAL_CHARS, parsed_credential
from shortlink.people.errors import InvalidMemberOption


def registration(**changes: Any) -> dict[str, Any]:
    answer: dict[str, Any] = {
        "id": "Y3JlZA",
        "rawId": "Y3JlZA",
        "type": "public-key",
        "authenticatorAttachment": "platform",
        "response": {"clientDataJSON": "e30", "attestationObject": "oA", "transports": ["internal"]},
        "clientExtensionResults": {"credProps": {"rk": True}},
    }
    return {**answer, **changes}


def test_a_registration_keeps_webauthns_fields_only():
    posted = registration(extra="dropped")
    posted["response"]["publicKeyAlgorithm"] = -7
    credential = parsed_credential(json.dumps(posted), "registration")
    assert credential == {
        "id": "Y3JlZA",
        "rawId": "Y3JlZA",
        "type": "public-key",
        "authenticatorAttachment": "platform",
        "response": {
            "clientDataJSON": "e30",
            "attestationObject": "oA",
            "publicKeyAlgorithm": -7,
            "transports": ["internal"],
        },
        "clientExtensionResults": {},
    }


def test_an_authentication_needs_its_signature_and_keeps_the_user_handle():
    response = {"clientDataJSON": "e30", "authenticatorData": "AAAA", "signature": "MEQ", "userHandle": "dQ"}
    credential = parsed_credential(json.dumps(registration(response=response)), "authentication")
    assert credential["response"] == response
    with pytest.raises(InvalidMemberOption, match="signature"):
        parsed_credential(json.dumps(registration(response={**response, "signature": None})), "authentication")


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("", "sent none"),
        ("{", "not JSON"),
        ("[]", "not a public key credential"),
        (json.dumps(registration(type="password")), "type must be public-key"),
        (json.dumps(registration(rawId="b3RoZXI")), "id and rawId differ"),
        (json.dumps(registration(id="not base64url!")), "id must be base64url"),
        (json.dumps(registration(response={"clientDataJSON": "e30"})), "attestationObject"),
        (json.dumps(registration(response={"clientDataJSON": "e30", "attestationObject": "A" * 9000})), "longer"),
        (
            json.dumps(
                registration(response={"clientDataJSON": "e30", "attestationObject": "oA", "transports": "usb"})
            ),
            "transports",
        ),
        (
            json.dumps(
                registration(response={"clientDataJSON": "e30", "attestationObject": "oA", "transports": ["<b>"]})
            ),
            "transport",
        ),
        ("x" * (MAX_CREDENTIAL_CHARS + 1), "longer than"),
    ],
)
def test_a_malformed_answer_is_refused_naming_the_problem(text, problem):
    with pytest.raises(InvalidMemberOption, match=problem) as refused:
        parsed_credential(text, "registration")
    assert refused.value.field == "credential"


@given(st.text(max_size=300))
def test_any_text_is_parsed_or_refused_never_an_other_error(text):
    try:
        credential = parsed_credential(text, "authentication")
    except InvalidMemberOption:
        return
    assert credential["type"] == "public-key"
