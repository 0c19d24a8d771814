"""People and workspaces end to end, black box over real HTTP through the local stack (`make
dev`): an account of keys from before people (links, clicks, keys, a webhook) is a workspace
whose owner `make dev` prints; the owner invites an editor and a viewer (the invitations are read
from the stack's output, where `make dev` prints them); each signs up through their link, the
editor turns TOTP on and signs in with a code (pyotp); each does what the role allows and is
refused the rest, in the console and in the API with the pool's access token, which the console's
Sign out ends; the owner removes the editor, whose next request is refused; and everything from
before is still there.

On each DynamoDB of the e2e tests (the `store` fixture): a stack of its own, with room for this
round's sign-ins in the per-address limit (every request comes from 127.0.0.1)."""

import http.client
import json
import re
import time
import uuid
from collections.abc import Iterator, Mapping
from typing import Any
from urllib.parse import urlencode

import boto3
import pytest

from tests.e2e.running_stack import Response, RunningStack
from tests.integration.people import Authenticator

KEY = "sl_e2ePeopleTestKeyForTheStack000000"
FORM = {"Content-Type": "application/x-www-form-urlencoded"}


@pytest.fixture(scope="module")
def people_stack(store: dict[str, str]) -> Iterator[RunningStack]:
    started = RunningStack.start(endpoints=store, SHORTLINK_API_KEY=KEY, SIGN_IN_ATTEMPTS_PER_WINDOW="1000")
    assert started.ready, f"local stack did not start:\n{started.output()}"
    yield started
    assert started.stop() == 0, started.output()


class Visitor:
    """A browser over HTTP: its cookies kept, Origin sent with each form."""

    def __init__(self, stack: RunningStack) -> None:
        self.stack = stack
        self.cookies: dict[str, str] = {}

    def request(self, method: str, path: str, form: Mapping[str, str] | None = None) -> Response:
        headers = {"Cookie": "; ".join(f"{name}={value}" for name, value in self.cookies.items())}
        body = None
        if form is not None:
            headers |= {**FORM, "Origin": self.stack.base_url}
            body = urlencode(form)
        connection = http.client.HTTPConnection("127.0.0.1", self.stack.port, timeout=30)
        try:
            connection.request(method, path, body=body, headers=headers)
            raw = connection.getresponse()
            answer = Response(raw.status, {k.lower(): v for k, v in raw.getheaders()}, raw.read())
            set_cookies = [value for name, value in raw.getheaders() if name.lower() == "set-cookie"]
        finally:
            connection.close()
        for cookie in set_cookies:  # each Set-Cookie header of its own (a dict of headers keeps one)
            name, _, rest = cookie.partition("=")
            value = rest.split(";")[0]
            if value:
                self.cookies[name] = value
            else:
                self.cookies.pop(name, None)
        return answer

    def get(self, path: str) -> Response:
        return self.request("GET", path)

    def post(self, path: str, form: Mapping[str, str]) -> Response:
        return self.request("POST", path, form)

    def csrf(self, path: str = "/console") -> str:
        found = re.search(r'name="csrf" value="([0-9a-f]+)"', self.get(path).body.decode())
        assert found, f"no CSRF token on {path}"
        return found.group(1)


def text(answer: Response) -> str:
    return answer.body.decode()


def owner_credentials(stack: RunningStack) -> tuple[str, str]:
    found = re.search(r"Console: .* as (\S+) / (\S+) \(owner", stack.output())
    assert found, stack.output()
    return found.group(1), found.group(2)


def invitation_path(stack: RunningStack, email: str) -> str:
    """The link of the invitation `make dev` printed for `email`."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        found = re.findall(rf"Invitation email to {re.escape(email)}:.*?\n(http://\S+)", stack.output(), re.S)
        if found:
            return str(found[-1]).split(str(stack.port), 1)[1]
        time.sleep(0.1)
    raise AssertionError(f"no invitation printed for {email}:\n{stack.output()}")


def reset_code(stack: RunningStack, email: str) -> str:
    """The password reset code `make dev` printed for `email` (the last one)."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        found = re.findall(rf"Password reset email to {re.escape(email)} .*: your code is (\d{{6}})", stack.output())
        if found:
            return str(found[-1])
        time.sleep(0.1)
    raise AssertionError(f"no reset code printed for {email}:\n{stack.output()}")


def access_token(stack: RunningStack, email: str, password: str) -> str:
    """What a person's own client gets from the pool (the console never hands one out)."""
    cognito = boto3.client(
        "cognito-idp",
        endpoint_url=f"http://127.0.0.1:{stack.moto_port}",
        region_name="us-east-1",
        aws_access_key_id="local",
        aws_secret_access_key="local",
    )
    [pool] = cognito.list_user_pools(MaxResults=10)["UserPools"]
    [client] = cognito.list_user_pool_clients(UserPoolId=pool["Id"], MaxResults=10)["UserPoolClients"]
    answer = cognito.initiate_auth(
        ClientId=client["ClientId"],
        AuthFlow="USER_PASSWORD_AUTH",
        AuthParameters={"USERNAME": email, "PASSWORD": password},
    )
    return str(answer["AuthenticationResult"]["AccessToken"])


def before_people(stack: RunningStack) -> dict[str, Any]:
    """The account as a key made it before people: a link followed once, a key, a webhook."""
    auth = {"Authorization": f"Bearer {KEY}", "Content-Type": "application/json"}
    tag = f"before-{uuid.uuid4().hex[:6]}"
    link = stack.request("POST", "/links", {"url": "https://example.com/before", "title": tag, "tags": [tag]}, auth)
    assert link.status == 201, link.body
    code = link.json()["code"]
    assert stack.request("GET", f"/{code}", headers={"User-Agent": "Mozilla/5.0 Firefox/130.0"}).status == 302
    key = stack.request("POST", "/keys", {"name": f"{tag}-key", "scopes": ["links:read"]}, auth)
    assert key.status == 201, key.body
    hook = stack.request("POST", "/webhooks", {"url": "https://example.com/hook", "events": ["link.created"]}, auth)
    assert hook.status == 201, hook.body
    return {"code": code, "tag": tag, "key_id": key.json()["key_id"], "webhook_id": hook.json()["id"], "auth": auth}


def clicks_of(stack: RunningStack, code: str, auth: dict[str, str]) -> int:
    deadline = time.monotonic() + 30  # the click reaches the stats through the queue and ingest
    while True:
        clicks = int(stack.request("GET", f"/links/{code}/stats", headers=auth).json()["clicks"])
        if clicks or time.monotonic() > deadline:
            return clicks
        time.sleep(0.5)


def signed_up(stack: RunningStack, email: str, password: str) -> Visitor:
    visitor = Visitor(stack)
    path = invitation_path(stack, email)
    assert visitor.get(path).status == 200
    joined = visitor.post(
        "/console/invitations/accept",
        {"token": path.rsplit("/", 1)[1], "mode": "sign-up", "email": email, "password": password},
    )
    assert (joined.status, joined.headers.get("location")) == (303, "/console"), joined.body
    assert visitor.post("/console/invitations/accept", {"token": path.rsplit("/", 1)[1], "mode": "sign-in",
                        "email": email, "password": password}).status == 404  # fmt: skip  # taken once
    return visitor


def test_an_owner_invites_an_editor_and_a_viewer_who_do_what_their_roles_allow(people_stack):
    stack = people_stack
    before = before_people(stack)
    owner_email, owner_password = owner_credentials(stack)
    owner = Visitor(stack)
    signed = owner.post("/console/sign-in/person", {"email": owner_email, "password": owner_password})
    assert (signed.status, signed.headers.get("location")) == (303, "/console"), signed.body
    assert before["tag"] in text(owner.get("/console"))  # the account's links are the workspace's

    run = uuid.uuid4().hex[:6]
    editor_email, viewer_email = f"editor-{run}@example.com", f"viewer-{run}@example.com"
    for email, role in ((editor_email, "editor"), (viewer_email, "viewer")):
        invited = owner.post(
            "/console/members/invite", {"csrf": owner.csrf("/console/members"), "email": email, "role": role}
        )
        assert invited.status == 201, invited.body
    password = f"Pass-{run}-word1A"
    editor = signed_up(stack, editor_email, password)
    viewer = signed_up(stack, viewer_email, password)

    # The editor turns TOTP on, signs out, and signs in with a code of the app
    started = editor.post("/console/security/totp", {"csrf": editor.csrf("/console/security"), "password": password})
    secret = re.search(r'id="totp-secret">([A-Za-z2-7]+)<', text(started))
    assert secret, started.body
    app = Authenticator(secret.group(1))
    on = editor.post(
        "/console/security/totp/confirm",
        {"csrf": editor.csrf("/console/security"), "password": password, "code": app.fresh()},
    )
    assert 'id="totp-on"' in text(on), on.body
    assert editor.post("/console/sign-out", {"csrf": editor.csrf()}).status == 303
    editor = Visitor(stack)
    asked = editor.post("/console/sign-in/person", {"email": editor_email, "password": password})
    assert asked.status == 200
    assert 'autocomplete="one-time-code"' in text(asked)
    done = editor.post("/console/sign-in/challenge", {"answer": app.fresh()})
    assert (done.status, done.headers.get("location")) == (303, "/console"), done.body

    # The editor creates links; keys and members are not theirs to see
    made = editor.post(
        "/console/links", {"csrf": editor.csrf("/console/links/new"), "url": "https://example.com/by-editor"}
    )
    assert made.status == 303, made.body
    for page in ("/console/keys", "/console/members"):
        assert editor.get(page).status == 403, page
    # The viewer reads; a crafted create is refused and makes nothing
    auth = before["auth"]
    count = len(stack.request("GET", "/links?limit=100", headers=auth).json()["links"])
    assert before["tag"] in text(viewer.get("/console"))
    crafted = viewer.post("/console/links", {"csrf": viewer.csrf(), "url": "https://example.com/by-viewer"})
    assert crafted.status == 403
    assert len(stack.request("GET", "/links?limit=100", headers=auth).json()["links"]) == count
    # The same in the API, with the pool's access token and the workspace named
    token = access_token(stack, viewer_email, password)
    me = stack.request("GET", "/people/me", headers={"Authorization": f"Bearer {token}"})
    assert me.status == 200, me.body
    [membership] = me.json()["workspaces"]
    assert membership["role"] == "viewer"
    workspace = membership["workspace_id"]
    as_viewer = {
        "Authorization": f"Bearer {token}",
        "X-Shortlink-Workspace": workspace,
        "Content-Type": "application/json",
    }
    assert stack.request("GET", f"/links/{before['code']}", headers=as_viewer).status == 200
    refused = stack.request("POST", "/links", {"url": "https://example.com/api-viewer"}, as_viewer)
    assert (refused.status, refused.json()["scope"]) == (403, "links:write")
    assert stack.request("GET", "/people/me", headers={"Authorization": f"Bearer {KEY}"}).status == 401
    # The viewer signs out of the console: their token no longer works on the API either
    assert viewer.post("/console/sign-out", {"csrf": viewer.csrf()}).status == 303
    assert stack.request("GET", f"/links/{before['code']}", headers=as_viewer).status == 401
    assert stack.request("GET", "/people/me", headers={"Authorization": f"Bearer {token}"}).status == 401

    # The owner removes the editor: their next request is refused
    page = text(owner.get("/console/members"))
    editor_subject = re.search(rf'data-subject="([^"]+)">\s*<td>{re.escape(editor_email)}', page)
    assert editor_subject, page
    form = {"csrf": owner.csrf("/console/members"), "confirmed": "yes"}
    removed = owner.post(f"/console/members/{editor_subject.group(1)}/remove", form)
    assert removed.status == 303
    assert editor.get("/console").headers.get("location") == "/console/sign-in?why=removed"

    # Everything from before is still there
    assert before["tag"] in text(owner.get("/console"))
    assert clicks_of(stack, before["code"], auth) == 1
    assert before["key_id"] in text(owner.get("/console/keys"))
    assert before["webhook_id"] in json.dumps(stack.request("GET", "/webhooks", headers=auth).json())
