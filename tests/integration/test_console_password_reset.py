"""Forgot password in the console, through its function, against moto's Cognito taught by make
dev's emulation to send and check reset codes as Cognito does: the same answer for an address
with an account and one without, requests limited per address and per email, a wrong code
refused alike for both, the pool's password rule shown and applied, and every session of the
person ended by the new password."""

import re

import pytest
from moto.cognitoidp.responses import CognitoIdpResponse

from shortlink import wiring as services
from shortlink.access.rate_limits import RESET_REQUESTS_PER_ACCOUNT, RESET_REQUESTS_PER_ADDRESS
from shortlink.audit.queries import AuditQuery
from tests.integration.people import Pool, user_pool_in
from tests.integration.test_console_people import PersonBrowser, signed_in, workspace  # noqa: F401
from tools.developers.devstack import password_reset_codes

pytestmark = pytest.mark.one_account_per_module


@pytest.fixture
def pool(aws, template, monkeypatch) -> Pool:
    monkeypatch.setattr(CognitoIdpResponse, "forgot_password", password_reset_codes.forgot_password)
    monkeypatch.setattr(CognitoIdpResponse, "confirm_forgot_password", password_reset_codes.confirm_forgot_password)
    return user_pool_in(template, monkeypatch)


def reset_code(capsys: pytest.CaptureFixture[str], email: str) -> str:
    printed = capsys.readouterr().out
    found = re.findall(rf"Password reset email to {re.escape(email)} .*: your code is (\d{{6}})", printed)
    assert found
    return str(found[-1])


def test_a_forgotten_password_is_reset_with_the_emailed_code_and_every_session_ends(handlers, pool, workspace, capsys):  # noqa: F811
    person, password = pool.member("cy@example.com", workspace, "editor")
    signed = signed_in(PersonBrowser(handlers), person.email, password)
    visitor = PersonBrowser(handlers, "2001:db8:1:2::7")
    assert 'href="/console/password/forgot"' in visitor.get("/console/sign-in")["body"]
    # Asked for a known and an unknown address: the same page, and only the account is sent a code
    known = visitor.post("/console/password/forgot", {"email": person.email})
    unknown = visitor.post("/console/password/forgot", {"email": "nobody@example.com"})
    assert known["statusCode"] == unknown["statusCode"] == 200
    assert known["body"].replace(person.email, "X") == unknown["body"].replace("nobody@example.com", "X")
    assert "At least 12 characters, with an upper-case letter, a lower-case letter, a digit." in known["body"]
    code = reset_code(capsys, person.email)
    # A wrong code, or any code for an unknown address, is refused alike; a weak password with the rule
    wrong = {"email": person.email, "code": "000000" if code != "000000" else "111111", "password": "Brand-new-pass-1"}
    refused = visitor.post("/console/password/reset", wrong)
    stranger = visitor.post("/console/password/reset", {**wrong, "email": "nobody@example.com", "code": code})
    assert refused["statusCode"] == stranger["statusCode"] == 400
    assert "That code is not right" in refused["body"]
    assert "That code is not right" in stranger["body"]
    weak = visitor.post("/console/password/reset", {**wrong, "code": code, "password": "short"})
    assert weak["statusCode"] == 422
    assert 'id="password-rule"' in weak["body"]
    fullwidth = "\uff11\uff12\uff13\uff14\uff15\uff16"  # digits, but not ASCII ones
    assert visitor.post("/console/password/reset", {**wrong, "code": fullwidth})["statusCode"] == 422
    # The right code sets the password, and the session signed in before has ended
    done = visitor.post("/console/password/reset", {**wrong, "code": code})
    assert 'id="sign-in-notice"' in done["body"], done["body"]
    assert signed.get("/console")["statusCode"] == 303
    assert PersonBrowser(handlers).sign_in(person.email, password)["statusCode"] == 401
    signed_in(PersonBrowser(handlers), person.email, "Brand-new-pass-1")
    # Spent: the code does not work twice
    assert visitor.post("/console/password/reset", {**wrong, "code": code})["statusCode"] == 400
    entries = services.audit_trail().page(workspace, AuditQuery()).entries
    assert [e.actor.id for e in entries if e.action == "person.password_reset"] == [person.subject]


def test_requests_for_codes_are_limited_per_email_and_per_address_known_or_not(handlers, pool, workspace, capsys):  # noqa: F811
    person, _ = pool.member("di@example.com", workspace, "viewer")
    for number, email in enumerate((person.email, "ghost@example.com")):
        browser = PersonBrowser(handlers, f"198.51.100.{number}")
        answers = [
            browser.post("/console/password/forgot", {"email": email}) for _ in range(RESET_REQUESTS_PER_ACCOUNT)
        ]
        assert {each["statusCode"] for each in answers} == {200}
        assert browser.post("/console/password/forgot", {"email": email})["statusCode"] == 429
    assert len(re.findall("Password reset email to", capsys.readouterr().out)) == RESET_REQUESTS_PER_ACCOUNT
    # Per address (an IPv6 /64 as one): other emails, the same line
    line = [PersonBrowser(handlers, f"2001:db8:5:6::{n}") for n in range(1, RESET_REQUESTS_PER_ADDRESS + 2)]
    answers = [each.post("/console/password/forgot", {"email": f"p{n}@example.com"}) for n, each in enumerate(line)]
    assert [each["statusCode"] for each in answers] == [200] * RESET_REQUESTS_PER_ADDRESS + [429]
    assert PersonBrowser(handlers).post("/console/password/forgot", {"email": "not an email"})["statusCode"] == 422
