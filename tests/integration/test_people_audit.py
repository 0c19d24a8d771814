"""The audit log of people, against moto's user pool: a person's sign-in, their invitation of a
member, the member's joining, a role changed and the member removed are each recorded in the
workspace's log with the person (their subject and email) as the actor; a person calling the API
with the pool's access token is that actor too."""

import json
import re
from typing import Any

import pytest

from shortlink import wiring as services
from shortlink.access.api_keys import hash_api_key
from tests.events import http_event
from tests.integration.people import Pool, user_pool_in
from tests.integration.test_console_people import PersonBrowser, invitation_link, signed_in

pytestmark = pytest.mark.one_account_per_module


@pytest.fixture
def pool(aws, template, monkeypatch) -> Pool:
    return user_pool_in(template, monkeypatch)


@pytest.fixture
def workspace(aws) -> str:
    key = aws.new_api_key("before-people")
    return services.api_key_store().find_by_hash(hash_api_key(key)).owner  # type: ignore[union-attr]


def audit_page(browser: PersonBrowser, target: str) -> dict[str, Any]:
    """The Audit log page of `browser`'s session, of one kind of target."""
    event = http_event("GET", "/console/audit", headers={"host": "sho.rt"}, route="/console/{proxy+}",
                       query={"target": target})  # fmt: skip
    event["cookies"] = [f"{name}={value}" for name, value in browser.cookies.items()]
    answer: dict[str, Any] = browser.handlers["ConsoleFunction"](event)
    return answer


def logged(browser: PersonBrowser, target: str) -> list[tuple[str, str, str]]:
    """(action, target id, actor id) of each entry the Audit log page shows, newest first."""
    page = audit_page(browser, target)
    assert page["statusCode"] == 200, page["body"]
    rows = re.findall(
        r'<tr data-action="([a-z._]+)".*?<small>\((?:key|person) <code>([^<]*)</code>\)</small>.*?'
        r'<td class="target">\w+ <code>([^<]*)</code>',
        page["body"],
        re.S,
    )
    return [(action, target_id, actor) for action, actor, target_id in rows]


def test_member_actions_are_recorded_with_the_person_who_made_them(handlers, pool, workspace, capsys):
    owner, password = pool.member("owner@example.com", workspace, "owner")
    managing = signed_in(PersonBrowser(handlers), owner.email, password)
    # The owner invites an editor, who signs up through the link and joins
    form = {"csrf": managing.csrf("/console/members"), "email": "ed@example.com", "role": "editor"}
    assert managing.post("/console/members/invite", form)["statusCode"] == 201
    [invitation] = services.invitations().pending_for(workspace)
    token = invitation_link(capsys, "ed@example.com").rsplit("/", 1)[1]
    joining = {"token": token, "mode": "sign-up", "email": "ed@example.com", "password": "Long-enough-1A"}
    assert PersonBrowser(handlers).post("/console/invitations/accept", joining)["statusCode"] == 303
    [editor] = [m for m in services.memberships().members_of(workspace) if m.email == "ed@example.com"]
    # Then makes them a viewer, and removes them
    role = {"csrf": managing.csrf("/console/members"), "role": "viewer"}
    assert managing.post(f"/console/members/{editor.subject}/role", role)["statusCode"] == 303
    remove = {"csrf": managing.csrf("/console/members"), "confirmed": "yes"}
    assert managing.post(f"/console/members/{editor.subject}/remove", remove)["statusCode"] == 303
    # The log shows each step, newest first, each by the person who took it
    assert logged(managing, "member") == [
        ("member.removed", editor.subject, owner.subject),
        ("member.role_changed", editor.subject, owner.subject),
        ("member.joined", editor.subject, editor.subject),
        ("member.invited", invitation.invitation_id, owner.subject),
    ]
    sessions = logged(managing, "session")
    assert ("session.signed_in", owner.subject, owner.subject) in sessions
    assert ("session.signed_in", editor.subject, editor.subject) in sessions
    assert token not in managing.get("/console/audit")["body"]  # an invitation's token is never logged
    page = audit_page(managing, "member")["body"]
    assert "owner@example.com <small>(person" in page


def test_a_person_calling_the_api_with_an_access_token_is_the_actor(handlers, pool, workspace):
    editor, password = pool.member("api-editor@example.com", workspace, "editor")
    token = pool.access_token(editor.email, password)
    # A person names the workspace they act in (they may belong to several)
    acting = {"authorization": f"Bearer {token}", "x-shortlink-workspace": workspace}
    event = http_event("POST", "/links", headers=acting, body={"url": "https://example.com/by-a-person"})
    answer = handlers["CreateFunction"](event)
    assert answer["statusCode"] == 201, answer["body"]
    code = json.loads(answer["body"])["code"]
    owner, owner_password = pool.member("api-owner@example.com", workspace, "owner")
    owner_token = pool.access_token(owner.email, owner_password)
    query = {"target": "link", "target_id": code}
    owning = {"authorization": f"Bearer {owner_token}", "x-shortlink-workspace": workspace}
    read = handlers["KeysFunction"](http_event("GET", "/audit", headers=owning, query=query))
    assert read["statusCode"] == 200, read["body"]
    [entry] = json.loads(read["body"])["entries"]
    assert entry["actor"] == {"kind": "person", "id": editor.subject, "label": "api-editor@example.com"}
    assert (entry["action"], entry["workspace"]) == ("link.created", workspace)
    # An editor holds no admin scope: the log is not theirs to read
    refused = handlers["KeysFunction"](http_event("GET", "/audit", headers=acting))
    assert refused["statusCode"] == 403
