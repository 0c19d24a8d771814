"""SCIM 2.0 through the console's function against moto (its user pool made from people.yaml):
an owner makes the workspace's token in the console (no other role can), Okta's and Entra's
requests create, find, regroup and deactivate a person, and a deactivation ends the person's
console session, their API keys and their access tokens at the very next request."""

import re
from typing import Any

import pytest

from shortlink import wiring as services
from shortlink.access.api_keys import hash_api_key, issue_account_key
from shortlink.audit.queries import AuditQuery
from shortlink.people.actors import Actor
from tests.events import http_event
from tests.integration.people import Pool, user_pool_in
from tests.integration.test_console_people import PersonBrowser, signed_in

pytestmark = pytest.mark.one_account_per_module
USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User"
GROUP_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Group"
PATCH = "urn:ietf:params:scim:api:messages:2.0:PatchOp"
ERROR = "urn:ietf:params:scim:api:messages:2.0:Error"


@pytest.fixture
def pool(aws, template, monkeypatch) -> Pool:
    return user_pool_in(template, monkeypatch)


@pytest.fixture
def workspace(aws) -> str:
    key = aws.new_api_key("scim-workspace")
    return services.api_key_store().find_by_hash(hash_api_key(key)).owner  # type: ignore[union-attr]


class Scim:
    """An identity provider calling /scim/v2 with a bearer token."""

    def __init__(self, handlers: dict[str, Any], token: str) -> None:
        self.handlers, self.token = handlers, token

    def __call__(self, method: str, path: str, body: Any = None, query: dict[str, str] | None = None) -> dict[str, Any]:
        headers = {"authorization": f"Bearer {self.token}", "content-type": "application/scim+json"}
        event = http_event(
            method, f"/scim/v2{path}", route="/scim/v2/{proxy+}", headers=headers, body=body, query=query
        )
        answer: dict[str, Any] = self.handlers["ConsoleFunction"](event)
        return answer


def made_token(browser: PersonBrowser) -> str:
    made = browser.post("/console/workspace/scim", {"csrf": browser.csrf("/console/workspace/scim")})
    assert made["statusCode"] == 201, made["body"]
    found = re.search(r'id="new-token">(scim_[0-9A-Za-z]+)<', made["body"])
    assert found, made["body"]
    return found.group(1)


def json_of(answer: dict[str, Any]) -> Any:
    import json

    assert answer["headers"]["Content-Type"] == "application/scim+json"
    return json.loads(answer["body"])


def test_only_an_owner_makes_and_revokes_scim_tokens_and_a_revoked_one_stops_at_once(handlers, pool, workspace):
    # Given an owner, and an admin, an editor and a viewer of the workspace, signed in
    owner, owner_password = pool.member("owner@example.com", workspace, "owner")
    owners = signed_in(PersonBrowser(handlers), owner.email, owner_password)
    others = []
    for role in ("admin", "editor", "viewer"):
        person, password = pool.member(f"{role}@example.com", workspace, role)
        others.append(signed_in(PersonBrowser(handlers), person.email, password))
    # When any but the owner asks for the page, makes or revokes a token: refused
    for browser in others:
        assert browser.get("/console/workspace/scim")["statusCode"] == 403
        assert browser.post("/console/workspace/scim", {"csrf": browser.csrf()})["statusCode"] == 403
        revoking = browser.post("/console/workspace/scim/0123456789ab/revoke", {"csrf": browser.csrf()})
        assert revoking["statusCode"] == 403
    assert services.scim_tokens().of_workspace(workspace) == []
    token = made_token(owners)
    scim = Scim(handlers, token)
    # Then it opens SCIM, is listed by id only (never the token), and is audited
    config = json_of(scim("GET", "/ServiceProviderConfig"))
    assert (config["patch"], config["bulk"]["supported"], config["filter"]) == (
        {"supported": True}, False, {"supported": True, "maxResults": 100},
    )  # fmt: skip
    assert [each["id"] for each in json_of(scim("GET", "/ResourceTypes"))["Resources"]] == ["User", "Group"]
    assert json_of(scim("GET", f"/Schemas/{USER_SCHEMA}"))["id"] == USER_SCHEMA
    assert scim("GET", "/Schemas/urn:nothing")["statusCode"] == 404
    assert json_of(scim("GET", "/Users"))["totalResults"] == 0
    page = owners.get("/console/workspace/scim")["body"]
    [token_id] = re.findall(r'data-token-id="([0-9a-f]{12})"', page)
    assert token not in page
    # A revoked token is refused at its next request, in SCIM's error schema
    revoked = owners.post(f"/console/workspace/scim/{token_id}/revoke", {"csrf": owners.csrf()})
    assert revoked["statusCode"] == 303
    refused_scim = scim("GET", "/Users")
    assert refused_scim["statusCode"] == 401
    assert json_of(refused_scim) == {
        "schemas": [ERROR], "status": "401",
        "detail": "a workspace's SCIM token is needed (Authorization: Bearer scim_…)",
    }  # fmt: skip
    # An API key, even the workspace's admin one, is no SCIM token
    assert Scim(handlers, "sl_" + "a" * 32)("GET", "/Users")["statusCode"] == 401
    actions = [entry.action for entry in services.audit_trail().page(workspace, AuditQuery()).entries]
    assert {"scim.token_created", "scim.token_revoked"} <= set(actions)


def test_deprovisioning_ends_the_session_keys_and_tokens_at_the_next_request(handlers, pool, workspace):
    # Given an owner's SCIM token and an editor signed in to the console, with a key and an access token
    owner, owner_password = pool.member("owner@example.com", workspace, "owner")
    editor, editor_password = pool.member("leaver@example.com", workspace, "viewer")
    scim = Scim(handlers, made_token(signed_in(PersonBrowser(handlers), owner.email, owner_password)))
    editors = signed_in(PersonBrowser(handlers), editor.email, editor_password)
    membership = services.memberships().membership_in(workspace, editor.subject)
    assert membership is not None
    _, key = issue_account_key(
        services.api_key_store(), Actor.of_member(membership), "leaver's key", frozenset({"links:read"}), None,
        membership.added_at,
    )  # fmt: skip
    access_token = pool.access_token(editor.email, editor_password)
    assert (
        handlers["ManageFunction"](http_event("GET", "/links", headers={"authorization": f"Bearer {key}"}))[
            "statusCode"
        ]
        == 200
    )

    # When Okta creates the person (as Okta spells it) and puts them in its "Shortlink Editors" group
    created = scim("POST", "/Users", {
        "schemas": [USER_SCHEMA], "userName": "Leaver@Example.com", "name": {"givenName": "Lee", "familyName": "Ver"},
        "emails": [{"primary": True, "value": "leaver@example.com", "type": "work"}], "active": True,
        "externalId": "00u1okta",
    })  # fmt: skip
    assert created["statusCode"] == 201, created["body"]
    user = json_of(created)
    assert (user["userName"], user["active"], user["meta"]["resourceType"]) == ("leaver@example.com", True, "User")
    assert created["headers"]["Location"].endswith(f"/scim/v2/Users/{user['id']}")
    group = scim("POST", "/Groups", {"schemas": [GROUP_SCHEMA], "displayName": "Shortlink Editors", "members": []})
    assert group["statusCode"] == 201, group["body"]
    group_id = json_of(group)["id"]
    member = {"value": user["id"], "display": "leaver@example.com"}
    added = scim("PATCH", f"/Groups/{group_id}", {"schemas": [PATCH], "Operations": [
        {"op": "add", "path": "members", "value": [member]}]})  # fmt: skip
    assert added["statusCode"] == 200, added["body"]
    # Then their group made them an editor, and Okta finds them by userName (any case)
    assert services.memberships().role_in(workspace, editor.subject) == "editor"
    found = json_of(scim("GET", "/Users", query={"filter": 'userName eq "LEAVER@example.com"'}))
    assert (found["totalResults"], found["Resources"][0]["id"]) == (1, user["id"])
    assert found["Resources"][0]["groups"] == [{"value": group_id, "display": "Shortlink Editors"}]

    # When Entra deactivates them (its capitalised op and string boolean)
    off = scim("PATCH", f"/Users/{user['id']}", {"schemas": [PATCH], "Operations": [
        {"op": "Replace", "path": "active", "value": "False"}]})  # fmt: skip
    assert off["statusCode"] == 200, off["body"]
    assert json_of(off)["active"] is False
    # Then the very next console request, key request and access-token request are refused
    assert editors.get("/console")["statusCode"] == 303
    assert (
        handlers["ManageFunction"](http_event("GET", "/links", headers={"authorization": f"Bearer {key}"}))[
            "statusCode"
        ]
        == 401
    )
    person_call = http_event("GET", "/people/me", headers={"authorization": f"Bearer {access_token}"})
    assert handlers["KeysFunction"](person_call)["statusCode"] in (401, 403)
    assert services.memberships().role_in(workspace, editor.subject) is None
    actions = [entry.action for entry in services.audit_trail().page(workspace, AuditQuery()).entries]
    assert "member.removed" in actions

    # When Okta reactivates them (its value-object form): they are a member again, with their group's role
    on = scim(
        "PATCH",
        f"/Users/{user['id']}",
        {"schemas": [PATCH], "Operations": [{"op": "replace", "value": {"active": True}}]},
    )
    assert json_of(on)["active"] is True
    assert services.memberships().role_in(workspace, editor.subject) == "editor"
    # And a DELETE deprovisions for good: gone from SCIM and from the workspace
    assert scim("DELETE", f"/Users/{user['id']}")["statusCode"] == 204
    assert scim("GET", f"/Users/{user['id']}")["statusCode"] == 404
    assert services.memberships().role_in(workspace, editor.subject) is None
    assert json_of(scim("GET", f"/Groups/{group_id}")).get("members") is None


BAD_REQUESTS = [
    ("GET", "/Users", None, {"filter": 'userName sw "a"'}, 400, "invalidFilter"),
    ("GET", "/Users", None, {"filter": 'title eq "x"'}, 400, "invalidFilter"),
    ("GET", "/Users", None, {"count": "\u0661\u0660"}, 400, "invalidValue"),  # Arabic-Indic digits
    ("POST", "/Users", {"schemas": [USER_SCHEMA]}, None, 400, "invalidValue"),
    ("POST", "/Users", {"schemas": [USER_SCHEMA], "userName": "a" * 300}, None, 400, "invalidValue"),
    ("POST", "/Users", "{not json", None, 400, "invalidSyntax"),
    ("PATCH", "/Users/nobody", {"schemas": [PATCH], "Operations": []}, None, 404, None),
    ("GET", "/Groups/nobody", None, None, 404, None),
]


def test_bad_requests_are_refused_in_scims_error_schema_and_nothing_is_written(handlers, pool, workspace):
    owner, password = pool.member("owner@example.com", workspace, "owner")
    scim = Scim(handlers, made_token(signed_in(PersonBrowser(handlers), owner.email, password)))
    for method, path, body, query, status, scim_type in BAD_REQUESTS:
        answer = scim(method, path, body, query)
        assert answer["statusCode"] == status, (path, answer["body"])
        error = json_of(answer)
        assert (error["schemas"], error["status"], error.get("scimType")) == ([ERROR], str(status), scim_type)
        assert error["detail"]
    # A second user of one address is a conflict (409 uniqueness), and the first stays as it was
    first = {"schemas": [USER_SCHEMA], "userName": "twice@example.com", "externalId": "first"}
    assert scim("POST", "/Users", first)["statusCode"] == 201
    again = scim("POST", "/Users", {**first, "userName": "TWICE@example.com", "externalId": "second"})
    assert (again["statusCode"], json_of(again)["scimType"]) == (409, "uniqueness")
    # The workspace's last owner cannot be provisioned as deactivated (409), and no user is kept
    last_owner = scim("POST", "/Users", {"schemas": [USER_SCHEMA], "userName": owner.email, "active": False})
    assert last_owner["statusCode"] == 409, last_owner["body"]
    assert services.memberships().role_in(workspace, owner.subject) == "owner"
    listed = json_of(scim("GET", "/Users"))
    assert [(each["userName"], each["externalId"]) for each in listed["Resources"]] == [("twice@example.com", "first")]
