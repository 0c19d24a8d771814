"""Passkeys through the user pool adapter, against moto's Cognito taught WebAuthn by make dev's
emulation (tools.developers.devstack.passkeys): a software authenticator makes and uses the passkeys, the
emulation verifies them with py_webauthn. Every refusal: a wrong password, a malformed
credential, a replayed challenge, another person's credential, a wrong origin, a cloned
authenticator (its counter gone back)."""

import json
import re
from pathlib import Path

import pytest

from shortlink import wiring as services
from shortlink.people.errors import InvalidMemberOption, PasskeyRefused, SignInRefused
from shortlink.people.model import Person
from shortlink.people.ports import UserPool
from tests.integration.passkeys import SoftwarePasskey, unb64url
from tests.integration.people import Pool, user_pool_in
from tools.developers.devstack.passkeys import install

ORIGIN = "http://localhost:3000"  # make dev's console, as the browser tests browse it
NEVER_STARTED = {"challenge": "AAAA", "rp": {"id": "localhost"}, "user": {"id": "AAAA"}}  # options nobody gave


@pytest.fixture
def pool(aws, template, monkeypatch) -> Pool:
    install()
    made = user_pool_in(template, monkeypatch)
    assert made.local.passkey_relying_party == "localhost"
    return made


def registered(users: UserPool, email: str, password: str, device: SoftwarePasskey) -> str:
    """A passkey of `device` added to the person's; its credential id."""
    options = users.start_passkey_registration(email, password)
    credential = device.create(options)
    users.complete_passkey_registration(email, password, credential)
    return str(credential["id"])


def test_a_person_adds_a_passkey_sees_it_and_signs_in_with_it(pool):
    person, password = pool.person("ada@example.com")
    users = services.user_pool()
    device = SoftwarePasskey(ORIGIN)
    options = users.start_passkey_registration(person.email, password)
    assert options["rp"]["id"] == "localhost"
    assert options["authenticatorSelection"]["userVerification"] == "required"
    credential_id = registered(users, person.email, password, device)
    [listed] = users.passkeys(person.email, password)
    assert listed.credential_id == credential_id
    started = users.start_passkey_sign_in(person.email)
    assert started.challenge.kind == "passkey"
    assert started.challenge.email == person.email
    request = json.loads(started.request_options)
    assert [each["id"] for each in request["allowCredentials"]] == [credential_id]
    signed = users.finish_passkey_sign_in(started.challenge, device.get(request))
    assert signed == Person(person.subject, person.email)
    # Twice: the counter moves on, and the pool takes it
    again = users.start_passkey_sign_in(person.email)
    assert users.finish_passkey_sign_in(again.challenge, device.get(json.loads(again.request_options))) == signed


def test_registration_refuses_a_wrong_password_a_bad_credential_a_replay_and_a_wrong_origin(pool):
    person, password = pool.person("bob@example.com")
    users = services.user_pool()
    device = SoftwarePasskey(ORIGIN)
    with pytest.raises(SignInRefused):
        users.start_passkey_registration(person.email, "Not-the-password-1")
    with pytest.raises(PasskeyRefused, match="challenge"):  # nothing started
        users.complete_passkey_registration(person.email, password, device.create(NEVER_STARTED))
    options = users.start_passkey_registration(person.email, password)
    with pytest.raises(PasskeyRefused, match="Origin"):
        users.complete_passkey_registration(person.email, password, device.create(options, "https://evil.example"))
    options = users.start_passkey_registration(person.email, password)
    with pytest.raises(InvalidMemberOption):
        users.complete_passkey_registration(person.email, password, {"id": "x", "type": "public-key"})
    options = users.start_passkey_registration(person.email, password)
    made = device.create(options)
    users.complete_passkey_registration(person.email, password, made)
    with pytest.raises(PasskeyRefused, match="challenge"):  # the challenge was spent
        users.complete_passkey_registration(person.email, password, made)
    assert len(users.passkeys(person.email, password)) == 1


def test_sign_in_refuses_a_replay_another_persons_passkey_a_wrong_origin_and_a_clone(pool):
    ada, ada_password = pool.person("ada2@example.com")
    eve, eve_password = pool.person("eve@example.com")
    users = services.user_pool()
    ada_device, eve_device = SoftwarePasskey(ORIGIN), SoftwarePasskey(ORIGIN)
    registered(users, ada.email, ada_password, ada_device)
    eve_credential = registered(users, eve.email, eve_password, eve_device)

    started = users.start_passkey_sign_in(ada.email)
    request = json.loads(started.request_options)
    answer = ada_device.get(request)
    assert users.finish_passkey_sign_in(started.challenge, answer) == Person(ada.subject, ada.email)
    with pytest.raises(SignInRefused):  # the same session and answer again
        users.finish_passkey_sign_in(started.challenge, answer)

    started = users.start_passkey_sign_in(ada.email)
    request = json.loads(started.request_options)
    with pytest.raises(SignInRefused):  # Eve's passkey answering Ada's challenge
        users.finish_passkey_sign_in(started.challenge, eve_device.get(request, credential_id=unb64url(eve_credential)))

    started = users.start_passkey_sign_in(ada.email)
    with pytest.raises(SignInRefused):
        users.finish_passkey_sign_in(
            started.challenge, ada_device.get(json.loads(started.request_options), "https://evil.example")
        )

    started = users.start_passkey_sign_in(ada.email)
    [(credential_id, _)] = ada_device.counts.items()
    ada_device.counts[credential_id] = 0  # a copy of the key, its counter behind the pool's
    with pytest.raises(SignInRefused):
        users.finish_passkey_sign_in(started.challenge, ada_device.get(json.loads(started.request_options)))

    nobody, _ = pool.person("nopasskey@example.com")
    with pytest.raises(SignInRefused):  # no passkey of theirs: the pool offers other challenges
        users.start_passkey_sign_in(nobody.email)
    with pytest.raises(SignInRefused):
        users.start_passkey_sign_in("unknown@example.com")


def test_a_person_removes_their_passkey_and_not_anothers(pool):
    ada, ada_password = pool.person("ada3@example.com")
    eve, eve_password = pool.person("eve3@example.com")
    users = services.user_pool()
    ada_credential = registered(users, ada.email, ada_password, SoftwarePasskey(ORIGIN))
    eve_credential = registered(users, eve.email, eve_password, SoftwarePasskey(ORIGIN))
    with pytest.raises(PasskeyRefused):
        users.remove_passkey(ada.email, ada_password, eve_credential)
    with pytest.raises(SignInRefused):
        users.remove_passkey(ada.email, "Not-the-password-1", ada_credential)
    assert [each.credential_id for each in users.passkeys(eve.email, eve_password)] == [eve_credential]
    users.remove_passkey(ada.email, ada_password, ada_credential)
    assert users.passkeys(ada.email, ada_password) == []
    with pytest.raises(PasskeyRefused):
        users.remove_passkey(ada.email, ada_password, ada_credential)
    with pytest.raises(SignInRefused):  # no passkey left: no passkey sign-in
        users.start_passkey_sign_in(ada.email)


def test_the_lambda_layer_ships_no_webauthn_library():
    # Cognito verifies passkeys deployed: py_webauthn is make dev's emulation's alone.
    layer = Path(__file__).resolve().parents[2] / "layers" / "common"
    assert "webauthn" not in (layer / "requirements.txt").read_text().lower()
    importing = [
        path.name for path in layer.rglob("*.py") if re.search(r"^\s*(from|import) webauthn", path.read_text(), re.M)
    ]
    assert importing == []
