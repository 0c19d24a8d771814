"""The team API against moto (its user pool made from people.yaml): members listed, given
another role and removed, invitations made, resent and revoked, the workspace renamed and a new
one made; each change one audit entry naming the person, their email then and their roles; no
escalation, the last owner kept, bad input a 4xx naming the problem with nothing written."""

import json
from datetime import UTC, datetime
from typing import Any

import pytest

from shortlink import wiring as services
from shortlink.access.api_keys import LINKS_READ, MEMBERS_READ, MEMBERS_WRITE, STATS_READ, issue_api_key
from shortlink.audit.queries import AuditQuery
from shortlink.people.errors import InvitationNotValid
from shortlink.people.invitations import accept
from shortlink.people.model import Person
from tests.events import http_event
from tests.integration.people import Pool, user_pool_in

pytestmark = pytest.mark.one_account_per_module
WORKSPACE = "0a1b2c3d4e5f"


@pytest.fixture
def pool(aws, template, monkeypatch) -> Pool:
    return user_pool_in(template, monkeypatch)


class Api:
    def __init__(self, handlers: dict[str, Any], token: str, workspace: str | None = WORKSPACE) -> None:
        self.handlers, self.token, self.workspace = handlers, token, workspace

    def __call__(self, method: str, path: str, route: str | None = None, body: Any = None) -> tuple[int, Any]:
        headers = {"authorization": f"Bearer {self.token}"}
        if self.workspace:
            headers["x-shortlink-workspace"] = self.workspace
        names = [part.strip("{}") for part in (route or path).split("/") if part.startswith("{")]
        values = [v for p, v in zip((route or path).split("/"), path.split("/"), strict=True) if p.startswith("{")]
        event = http_event(
            method, path, route=route or path, headers=headers, body=body,
            path_parameters=dict(zip(names, values, strict=True)),
        )  # fmt: skip
        answer = self.handlers["TeamFunction"](event)
        return answer["statusCode"], json.loads(answer["body"]) if answer.get("body") else None


def entries() -> list[dict[str, Any]]:
    found = services.audit_trail().page(WORKSPACE, AuditQuery(limit=100)).entries
    return [entry.view() for entry in reversed(found)]


def test_an_owner_manages_the_team_through_the_api_and_each_change_is_one_readable_entry(handlers, pool, monkeypatch):
    owner, owner_password = pool.member("boss@example.com", WORKSPACE, "owner")
    editor, _ = pool.member("ed@example.com", WORKSPACE, "editor")
    api = Api(handlers, pool.access_token(owner.email, owner_password))
    # Members are listed with their role and when they joined
    status, listed = api("GET", "/members")
    assert status == 200, listed
    assert [(m["email"], m["role"]) for m in listed["members"]] == [
        ("boss@example.com", "owner"),
        ("ed@example.com", "editor"),
    ]
    assert listed["members"][0]["last_active_at"] is not None  # this request was the owner's
    # An invitation sent (`make dev`'s way: printed) carries no link; one no way could send, its link once
    status, sent = api("POST", "/invitations", body={"email": "sent@example.com", "role": "viewer"})
    assert (status, sent["sent"], sent["link"]) == (201, True, None), sent
    for name in ("PEOPLE_PRINT_INVITATIONS", "PEOPLE_POOL_SENDS_INVITATIONS", "PEOPLE_INVITATIONS_FROM"):
        monkeypatch.setenv(name, "")
    services.reset()
    status, made = api("POST", "/invitations", body={"email": "New@Example.com", "role": "admin"})
    assert status == 201, made
    assert (made["sent"], made["invitation"]["email"]) == (False, "new@example.com")
    assert made["link"].startswith("https://")
    assert "/console/invitations/" in made["link"]
    assert (
        api("DELETE", f"/invitations/{sent['invitation']['invitation_id']}", "/invitations/{invitation_id}")[0] == 204
    )
    first_id = made["invitation"]["invitation_id"]
    status, again = api("POST", f"/invitations/{first_id}/resend", "/invitations/{invitation_id}/resend")
    assert status == 201, again
    assert again["link"] != made["link"]
    status, pending = api("GET", "/invitations")
    assert [each["invitation_id"] for each in pending["invitations"]] == [again["invitation"]["invitation_id"]]
    status, _ = api("DELETE", f"/invitations/{again['invitation']['invitation_id']}", "/invitations/{invitation_id}")
    assert status == 204
    assert api("GET", "/invitations")[1] == {"invitations": []}
    # A role changed, then the member removed
    path = f"/members/{editor.subject}"
    assert api("PATCH", path, "/members/{subject}", {"role": "viewer"}) == (204, None)
    assert api("DELETE", path, "/members/{subject}") == (204, None)
    assert services.memberships().role_in(WORKSPACE, editor.subject) is None
    # The workspace renamed
    status, renamed = api("PATCH", "/workspace", body={"name": " Spring campaign "})
    assert (status, renamed) == (200, {"workspace_id": WORKSPACE, "name": "Spring campaign", "role": "owner"})
    # Each change: one entry, with the person acted on as they were then
    logged = [(e["action"], e["person"]) for e in entries() if (e["person"] or {}).get("email") != "sent@example.com"]
    assert logged == [
        ("member.invited", {"email": "new@example.com", "old_role": None, "new_role": "admin"}),
        ("member.invitation_resent", {"email": "new@example.com", "old_role": None, "new_role": "admin"}),
        ("member.invitation_revoked", {"email": "new@example.com", "old_role": None, "new_role": "admin"}),
        ("member.role_changed", {"email": "ed@example.com", "old_role": "editor", "new_role": "viewer"}),
        ("member.removed", {"email": "ed@example.com", "old_role": "viewer", "new_role": None}),
        ("setting.changed", None),
    ]
    assert {e["actor"]["label"] for e in entries()} == {"boss@example.com"}


def test_nobody_grants_above_their_role_nor_drops_the_last_owner_and_bad_input_writes_nothing(handlers, pool):
    owner, owner_password = pool.member("only-owner@example.com", WORKSPACE, "owner")
    admin, admin_password = pool.member("admin@example.com", WORKSPACE, "admin")
    as_admin = Api(handlers, pool.access_token(admin.email, admin_password))
    as_owner = Api(handlers, pool.access_token(owner.email, owner_password))
    before = len(entries())
    refusals = [
        (as_admin("POST", "/invitations", body={"email": "x@example.com", "role": "owner"}), 403, "role_not_grantable"),
        (
            as_admin("PATCH", f"/members/{owner.subject}", "/members/{subject}", {"role": "viewer"}),
            403,
            "role_not_grantable",
        ),
        (as_admin("DELETE", f"/members/{owner.subject}", "/members/{subject}"), 403, "role_not_grantable"),
        (as_admin("PATCH", "/workspace", body={"name": "mine now"}), 403, "missing_scope"),
        (as_owner("PATCH", f"/members/{owner.subject}", "/members/{subject}", {"role": "admin"}), 409, "last_owner"),
        (as_owner("DELETE", f"/members/{owner.subject}", "/members/{subject}"), 409, "self_removal"),
        (as_owner("DELETE", "/members/nobody-here", "/members/{subject}"), 404, "not_found"),
        (as_owner("POST", "/invitations", body={"email": "not-an-address", "role": "viewer"}), 422, "invalid_request"),
        (as_owner("POST", "/invitations", body={"email": "x@example.com", "role": "god"}), 422, "invalid_request"),
        (as_owner("PATCH", "/workspace", body={"name": "\u202eevil"}), 422, "invalid_request"),
        (as_owner("DELETE", "/invitations/0123456789ab", "/invitations/{invitation_id}"), 404, "not_found"),
    ]
    for (status, body), expected, error in refusals:
        assert (status, body["error"]) == (expected, error), body
    assert refusals[3][0][1]["scope"] == "workspace:owner"
    assert refusals[0][0][1]["scope"] == "workspace:owner"
    assert "email" in refusals[7][0][1]["message"]
    assert services.memberships().role_in(WORKSPACE, owner.subject) == "owner"
    assert services.invitations().pending_for(WORKSPACE) == []
    assert len(entries()) == before  # nothing half-written, nothing recorded


def test_a_key_with_the_members_scopes_manages_only_roles_it_holds_and_a_person_makes_a_workspace(handlers, pool):
    store = services.api_key_store()
    scopes = frozenset({MEMBERS_READ, MEMBERS_WRITE, LINKS_READ, STATS_READ})
    _, key = issue_api_key(store, "provisioner", scopes, None, datetime.now(UTC), WORKSPACE)
    as_key = Api(handlers, key, workspace=None)
    status, made = as_key("POST", "/invitations", body={"email": "viewer@example.com", "role": "viewer"})
    assert status == 201, made
    status, refused = as_key("POST", "/invitations", body={"email": "editor@example.com", "role": "editor"})
    assert (status, refused["scope"]) == (403, "links:write")
    # A person makes a workspace of their own, named, whose owner they are
    person, password = pool.person("founder@example.com")
    founder = Api(handlers, pool.access_token(person.email, password), workspace=None)
    status, created = founder("POST", "/workspaces", body={"name": "Launch"})
    assert status == 201, created
    assert (created["name"], created["role"]) == ("Launch", "owner")
    assert services.memberships().role_in(created["workspace_id"], person.subject) == "owner"
    assert founder("POST", "/workspaces", body={"name": ""})[0] == 422
    assert as_key("POST", "/workspaces", body={"name": "by key"})[0] == 401  # people only


def test_an_invitation_grants_nothing_once_the_admin_who_made_it_is_demoted_or_removed(handlers, pool, monkeypatch):
    owner, owner_password = pool.member("boss@example.com", WORKSPACE, "owner")
    admin, admin_password = pool.member("adm@example.com", WORKSPACE, "admin")
    for name in ("PEOPLE_PRINT_INVITATIONS", "PEOPLE_POOL_SENDS_INVITATIONS", "PEOPLE_INVITATIONS_FROM"):
        monkeypatch.setenv(name, "")
    services.reset()
    by_admin, by_owner = (
        Api(handlers, pool.access_token(admin.email, admin_password)),
        Api(handlers, pool.access_token(owner.email, owner_password)),
    )

    def token_of(api: Api, email: str) -> str:
        status, made = api("POST", "/invitations", body={"email": email, "role": "editor"})
        assert status == 201, made
        return str(made["link"]).rsplit("/", 1)[-1]

    # Given invitations the admin sent, and one the owner sent
    demoted_first, removed_first, owners = (
        token_of(by_admin, "x@example.com"),
        token_of(by_admin, "y@example.com"),
        token_of(by_owner, "z@example.com"),
    )
    # When the owner makes the admin a viewer, the admin's invitation lets nobody in
    assert by_owner("PATCH", f"/members/{admin.subject}", "/members/{subject}", {"role": "viewer"}) == (204, None)
    now = datetime.now(UTC)
    with pytest.raises(InvitationNotValid, match=r"adm@example\.com may no longer invite"):
        accept(services.invitations(), services.memberships(), demoted_first, Person("sub-x", "x@example.com"), now)
    # nor after they are removed
    assert by_owner("DELETE", f"/members/{admin.subject}", "/members/{subject}") == (204, None)
    with pytest.raises(InvitationNotValid, match="may no longer invite"):
        accept(services.invitations(), services.memberships(), removed_first, Person("sub-y", "y@example.com"), now)
    assert services.memberships().role_in(WORKSPACE, "sub-x") is None
    assert services.memberships().role_in(WORKSPACE, "sub-y") is None
    # while the owner's still does
    accept(services.invitations(), services.memberships(), owners, Person("sub-z", "z@example.com"), now)
    assert services.memberships().role_in(WORKSPACE, "sub-z") == "editor"
