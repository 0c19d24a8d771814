"""The console's single sign-on through its Lambda handler, against moto (memberships, sessions,
the used states) and the local stand-in of the managed login served over HTTP in this process:
the button, the redirect to the managed login, the callback's just-in-time membership and
session, and every forged or replayed callback refused with no session and no member."""

import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
import urllib3
from werkzeug.serving import make_server

from shortlink import wiring as services
from shortlink.audit.queries import AuditQuery
from shortlink.people.invitations import hash_token, invite
from shortlink.people.members import join_on_first_sign_in, remove_member
from shortlink.people.model import Person
from shortlink.people.roles import scopes_of
from shortlink.scim.model import ProvisionedGroup, ProvisionedUser
from shortlink.wiring import invitations, memberships
from tests.e2e.running_stack import free_port
from tests.events import http_event
from tools.developers.devstack.managed_login import LOCAL_CLIENT_ID, FakeManagedLogin

pytestmark = pytest.mark.one_account_per_module
CALLBACK = "https://sho.rt/console/sso/callback"
WORKSPACE = "acme"
NOW = datetime.now(UTC)


def served(login: FakeManagedLogin) -> Iterator[str]:
    port = free_port()
    server = make_server("127.0.0.1", port, login.app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{port}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def managed_login() -> Iterator[tuple[FakeManagedLogin, str]]:
    login = FakeManagedLogin("us-east-1", "us-east-1_Console", LOCAL_CLIENT_ID, CALLBACK, "Entra")
    for base in served(login):
        yield login, base


@pytest.fixture(scope="module")
def impostor_login() -> Iterator[str]:
    """A managed login of the same name and issuer that signs with a key of its own."""
    yield from served(FakeManagedLogin("us-east-1", "us-east-1_Console", LOCAL_CLIENT_ID, CALLBACK, "Entra"))


def sso_environment(monkeypatch: pytest.MonkeyPatch, login: FakeManagedLogin, base: str, jwks_base: str) -> None:
    variables = {
        "SSO_PROVIDER_NAME": "Entra",
        "SSO_BUTTON_LABEL": "Example Corp",
        "SSO_LOGIN_URL": base,
        "SSO_CLIENT_ID": LOCAL_CLIENT_ID,
        "SSO_ISSUER": login.issuer,
        "SSO_JWKS_URL": f"{jwks_base}/.well-known/jwks.json",
        "SSO_CALLBACK_URL": CALLBACK,
        "SSO_WORKSPACE": WORKSPACE,
        "SSO_DEFAULT_ROLE": "viewer",
    }
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    services.reset()


@pytest.fixture
def sso(aws, monkeypatch, managed_login) -> str:
    login, base = managed_login
    sso_environment(monkeypatch, login, base, base)
    return str(base)


class Browser:
    """A browser's view of the console: it keeps every cookie the console sets."""

    def __init__(self, handlers: dict[str, Any]) -> None:
        self.handlers = handlers
        self.cookies: dict[str, str] = {}
        self.set_cookies: list[str] = []

    def get(self, path: str, query: dict[str, str] | None = None, host: str = "sho.rt") -> dict[str, Any]:
        return self.request("GET", path, query, host=host)

    def request(
        self, method: str, path: str, query: dict[str, str] | None = None, form: str | None = None, host: str = "sho.rt"
    ) -> dict[str, Any]:
        """`form` (urlencoded) is posted with the console's Origin, as its pages post."""
        headers = {"host": host}
        if form is not None:
            headers |= {"origin": f"https://{host}", "content-type": "application/x-www-form-urlencoded"}
        event = http_event(method, path, route="/console/{proxy+}", query=query, headers=headers, body=form)
        event["cookies"] = [f"{name}={value}" for name, value in self.cookies.items()]
        response: dict[str, Any] = self.handlers["ConsoleFunction"](event)
        self.set_cookies = response.get("cookies", [])
        for cookie in self.set_cookies:
            name, _, rest = cookie.partition("=")
            value = rest.split(";")[0]
            if value:
                self.cookies[name] = value
            else:
                self.cookies.pop(name, None)
        return response


def at_the_provider(authorize: str, email: str) -> dict[str, str]:
    """The person signs in at the managed login: the query it sends the browser back with."""
    fields = {name: values[0] for name, values in parse_qs(urlsplit(authorize).query).items()}
    base = authorize.split("/oauth2/authorize")[0]
    answer = urllib3.PoolManager().request(
        "POST", f"{base}/oauth2/authorize", fields={**fields, "email": email}, encode_multipart=False, redirect=False
    )
    assert answer.status == 302, answer.data
    location = answer.headers["Location"]
    assert location.startswith(f"{CALLBACK}?")
    return {name: values[0] for name, values in parse_qs(urlsplit(location).query).items()}


def started(browser: Browser, invitation: str = "") -> str:
    answer = browser.get("/console/sso", {"invitation": invitation} if invitation else None)
    assert answer["statusCode"] == 302
    return str(answer["headers"]["Location"])


def signed_in(browser: Browser, email: str) -> dict[str, Any]:
    return browser.get("/console/sso/callback", at_the_provider(started(browser), email))


def members() -> dict[str, str]:
    return {member.email: member.role for member in memberships().members_of(WORKSPACE)}


def test_the_sign_in_page_offers_the_button_only_with_sso(aws, handlers, monkeypatch, managed_login):
    assert "sso-sign-in" not in Browser(handlers).get("/console/sign-in")["body"]
    assert Browser(handlers).get("/console/sso")["statusCode"] == 404
    login, base = managed_login
    sso_environment(monkeypatch, login, base, base)
    page = Browser(handlers).get("/console/sign-in")["body"]
    assert '<a class="button" href="/console/sso" id="sso-sign-in">Sign in with Example Corp</a>' in page


def test_the_browser_goes_to_the_managed_login_with_a_short_lived_httponly_state_cookie(sso, handlers):
    browser = Browser(handlers)
    location = urlsplit(started(browser))
    assert f"{location.scheme}://{location.netloc}{location.path}" == f"{sso}/oauth2/authorize"
    query = parse_qs(location.query)
    assert query["identity_provider"] == ["Entra"]
    assert query["code_challenge_method"] == ["S256"]
    [cookie] = browser.set_cookies
    assert cookie.startswith("console_sso=")
    flags = {flag.strip().lower() for flag in cookie.split(";")[1:]}
    assert {"httponly", "secure", "samesite=lax", "path=/console/sso", "max-age=600"} <= flags
    # No token or code in the page or its headers: the state only.
    assert "id_token" not in str(browser.set_cookies)


def test_a_sign_in_started_on_another_host_of_the_stack_moves_to_the_callbacks_host_first(sso, handlers):
    browser = Browser(handlers)
    answer = browser.get("/console/sso", host="abc123.execute-api.us-east-1.amazonaws.com")
    assert (answer["statusCode"], answer["headers"]["Location"]) == (302, "https://sho.rt/console/sso")
    assert browser.cookies == {}  # no state on a host the callback never reaches


def test_a_first_sign_in_joins_the_workspace_as_viewer_and_a_later_one_keeps_the_role_an_owner_set(sso, handlers):
    browser = Browser(handlers)
    answer = signed_in(browser, "Ada@Example.com")
    assert (answer["statusCode"], answer["headers"]["Location"]) == (303, "/console"), answer.get("body")
    assert "console_session" in browser.cookies
    assert "console_sso" not in browser.cookies  # the sign-in's state is forgotten
    assert members() == {"ada@example.com": "viewer"}
    [membership] = memberships().members_of(WORKSPACE)
    assert membership.added_by == "single sign-on (Entra)"
    # The join is in the workspace's audit log, by the person who joined
    entries = services.audit_trail().page(WORKSPACE, AuditQuery()).entries  # newest first
    assert [(e.action, e.target.id, e.actor.id) for e in entries] == [
        ("session.signed_in", membership.subject, membership.subject),
        ("member.joined", membership.subject, membership.subject),
    ]
    home = browser.get("/console")
    assert home["statusCode"] == 200
    assert "id_token" not in home["body"]
    # An owner makes Ada an editor; her next sign-in keeps it.
    assert memberships().set_role(WORKSPACE, membership.subject, "editor")
    again = signed_in(Browser(handlers), "ada@example.com")
    assert again["statusCode"] == 303
    assert members() == {"ada@example.com": "editor"}
    actions = [entry.action for entry in services.audit_trail().page(WORKSPACE, AuditQuery()).entries]
    assert actions.count("member.joined") == 1  # signed in again, not joined again


def test_a_replayed_callback_is_refused_and_starts_no_session(sso, handlers):
    browser = Browser(handlers)
    query = at_the_provider(started(browser), "grace@example.com")
    state_cookie = browser.cookies["console_sso"]
    assert browser.get("/console/sso/callback", query)["statusCode"] == 303
    # The same answer with the same state cookie (copied, or the back button).
    replay = Browser(handlers)
    replay.cookies["console_sso"] = state_cookie
    answer = replay.get("/console/sso/callback", query)
    assert answer["statusCode"] == 400
    assert "already completed once" in answer["body"]
    assert "console_session" not in replay.cookies
    assert list(members()) == ["grace@example.com"]


@pytest.mark.parametrize(
    ("forge", "status", "problem"),
    [
        ("no state cookie", 400, "No sign-in was started in this browser"),
        ("another state", 400, "its state differs"),
        ("idp error", 400, "Example Corp did not sign you in: access_denied (AADSTS50105 not assigned)."),
        ("no code", 400, "carries no sign-in code"),
        ("made-up code", 400, "refused the sign-in code"),
    ],
)
def test_a_forged_callback_is_refused_naming_the_problem_with_no_session_or_member(
    sso, handlers, forge, status, problem
):
    browser = Browser(handlers)
    query = at_the_provider(started(browser), "mallory@example.com")
    if forge == "no state cookie":
        browser.cookies.clear()
    elif forge == "another state":
        query["state"] = "a-state-of-another-browser"
    elif forge == "idp error":
        query = {"error": "access_denied", "error_description": "AADSTS50105 not assigned", "state": query["state"]}
    elif forge == "no code":
        del query["code"]
    else:
        query["code"] = "a-code-nobody-issued"
    answer = browser.get("/console/sso/callback", query)
    assert answer["statusCode"] == status
    assert problem in answer["body"]
    assert "console_session" not in browser.cookies
    assert members() == {}


def test_a_token_signed_by_another_key_is_refused(aws, handlers, monkeypatch, managed_login, impostor_login):
    # The token endpoint is the impostor's; the keys the console trusts are the pool's.
    login, pool = managed_login
    sso_environment(monkeypatch, login, impostor_login, pool)
    browser = Browser(handlers)
    answer = signed_in(browser, "mallory@example.com")
    assert answer["statusCode"] == 401
    assert "signed by a key the user pool does not have" in answer["body"]
    assert "console_session" not in browser.cookies
    assert members() == {}


def test_a_login_service_that_does_not_answer_gets_a_502_page_and_no_session(aws, handlers, monkeypatch, managed_login):
    login, base = managed_login
    sso_environment(monkeypatch, login, base, base)
    browser = Browser(handlers)
    query = at_the_provider(started(browser), "ada@example.com")
    sso_environment(monkeypatch, login, f"http://127.0.0.1:{free_port()}", base)  # the token endpoint is down
    answer = browser.get("/console/sso/callback", query)
    assert answer["statusCode"] == 502
    assert "The login service did not answer as it should" in answer["body"]
    assert "console_session" not in browser.cookies
    assert members() == {}


def test_the_console_starts_without_the_jwt_library_the_login_adapter_or_scims_models():
    # Loaded on the first SSO callback (or SCIM request): no other console request pays for them.
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    probe = (
        "import importlib.util, json, sys\n"
        "spec = importlib.util.spec_from_file_location('console_app', 'functions/console/app.py')\n"
        "spec.loader.exec_module(importlib.util.module_from_spec(spec))\n"
        "print(json.dumps(sorted(n for n in ('joserfc', 'cryptography', 'urllib3', 'scim2_models',"
        " 'shortlink.adapters.http.managed_login') if n in sys.modules)))\n"
    )
    environment = {"PYTHONPATH": f"{root / 'layers/common'}:{root}", "POWERTOOLS_SERVICE_NAME": "console"}
    loaded = subprocess.run(
        [sys.executable, "-c", probe], cwd=root, env=environment, capture_output=True, text=True, check=True
    )
    assert loaded.stdout.strip() == "[]"


def test_a_removed_member_is_refused_at_their_next_sign_in_until_invited_again(sso, handlers):
    browser = Browser(handlers)
    assert signed_in(browser, "ada@example.com")["statusCode"] == 303
    [ada] = memberships().members_of(WORKSPACE)
    join_on_first_sign_in(memberships(), Person("sub-owner", "owner@example.com"), WORKSPACE, "owner")
    _, stale = invite(
        invitations(), scopes_of("owner"), "owner@example.com", WORKSPACE, ada.email, "admin", datetime.now(UTC)
    )
    remove_member(memberships(), scopes_of("owner"), WORKSPACE, ada.subject)
    # Her session ends at its next request, and single sign-on does not make her a member again.
    out = browser.get("/console")
    assert (out["statusCode"], out["headers"]["Location"]) == (303, "/console/sign-in?why=removed")
    again = Browser(handlers)
    answer = signed_in(again, "ada@example.com")
    assert answer["statusCode"] == 403
    assert "You were removed from this workspace; ask an owner to invite you again." in answer["body"]
    assert "console_session" not in again.cookies
    assert "console_sso" not in again.cookies
    assert members() == {"owner@example.com": "owner"}
    # An invitation made before her removal does not bring her back.
    old = Browser(handlers)
    answer = old.get("/console/sso/callback", at_the_provider(started(old, stale), "ada@example.com"))
    assert answer["statusCode"] == 404
    assert "This invitation is older than your removal" in answer["body"]
    assert "console_session" not in old.cookies
    assert members() == {"owner@example.com": "owner"}
    # An owner invites her again; she accepts with single sign-on from the invitation's page.
    _, token = invite(
        invitations(), scopes_of("owner"), "owner@example.com", WORKSPACE, ada.email, "editor", datetime.now(UTC)
    )
    back = Browser(handlers)
    invitation_page = back.get(f"/console/invitations/{token}")
    assert f'href="/console/sso?invitation={token}"' in invitation_page["body"]
    assert "Sign in with Example Corp and join" in invitation_page["body"]
    joined = back.get("/console/sso/callback", at_the_provider(started(back, token), "ada@example.com"))
    assert (joined["statusCode"], joined["headers"]["Location"]) == (303, "/console"), joined.get("body")
    assert "console_session" in back.cookies
    assert "console_sso_invitation" not in back.cookies
    assert back.get("/console")["statusCode"] == 200
    assert members() == {"ada@example.com": "editor", "owner@example.com": "owner"}
    # Her later sign-ins are plain ones again, and keep the invited role.
    assert signed_in(Browser(handlers), "ada@example.com")["statusCode"] == 303
    assert members() == {"ada@example.com": "editor", "owner@example.com": "owner"}


def test_an_invitation_accepted_with_single_sign_on_must_name_the_persons_address(sso, handlers):
    join_on_first_sign_in(memberships(), Person("sub-owner", "owner@example.com"), WORKSPACE, "owner")
    _, token = invite(
        invitations(), scopes_of("owner"), "owner@example.com", WORKSPACE, "ada@example.com", "admin", NOW
    )
    browser = Browser(handlers)
    answer = browser.get("/console/sso/callback", at_the_provider(started(browser, token), "mallory@example.com"))
    assert answer["statusCode"] == 403
    assert "This invitation is for ada@example.com" in answer["body"]
    assert "console_session" not in browser.cookies
    assert members() == {"owner@example.com": "owner"}
    assert invitations().find(hash_token(token), datetime.now(UTC)) is not None  # not spent
    # A spent or made-up invitation is refused the same way, with nobody joining.
    made_up = Browser(handlers)
    answer = made_up.get("/console/sso/callback", at_the_provider(started(made_up, "x" * 40), "ada@example.com"))
    assert answer["statusCode"] == 404
    assert "This invitation is unknown, was used already, or has expired." in answer["body"]
    assert members() == {"owner@example.com": "owner"}


@pytest.mark.parametrize("invitation", ["x" * 3000, "tok\u00e9n", "a\nb"])
def test_an_invitation_parameter_no_token_could_be_is_ignored_and_sets_no_cookie(sso, handlers, invitation):
    browser = Browser(handlers)
    answer = browser.get("/console/sso", {"invitation": invitation})
    assert answer["statusCode"] == 302
    assert set(browser.cookies) == {"console_sso"}


def test_a_provisioned_person_joins_with_their_groups_role_and_a_deactivated_one_not_at_all(sso, handlers):
    # Given the identity provider provisioned Ada in its "Editors" group, and deactivated Bob
    at = datetime.now(UTC)
    ada = ProvisionedUser("u-ada", WORKSPACE, "ada@example.com", at, at)
    bob = ProvisionedUser("u-bob", WORKSPACE, "bob@example.com", at, at, active=False)
    assert services.provisioned_users().add(ada)
    assert services.provisioned_users().add(bob)
    services.provisioned_groups().put(
        ProvisionedGroup("g1", WORKSPACE, "Editors", at, at, members=frozenset({"u-ada"}))
    )
    # When each signs in for the first time through the IdP
    assert signed_in(Browser(handlers), "Ada@example.com")["statusCode"] == 303
    refused = signed_in(Browser(handlers), "bob@example.com")
    # Then Ada is an editor (not the default viewer), and Bob gets no session and no membership
    assert refused["statusCode"] == 403
    assert "removed from this workspace" in refused["body"]
    assert "console_session" not in str(refused.get("cookies"))
    assert members() == {"ada@example.com": "editor"}
