"""Off-boarding ends a person's keys: a member of each role that may make keys makes one with the
API (their access token) and that key makes a child; then the member is removed, leaves, or is
downgraded through the console, and every keyed route of template.yaml (scopes from the OpenAPI
document, as test_scope_matrix reads them) answers both keys only what the member's role now
grants: 401 once they are gone, 403 naming the scope the new role lacks, and no mark of what it
may not read. GET /keys and the Keys page name each key's maker."""

import json
from typing import Any

import pytest

from shortlink import wiring as services
from shortlink.access.api_keys import ALL_SCOPES, hash_api_key
from shortlink.people.model import ROLES, Role
from shortlink.people.roles import scopes_of
from tests.integration.people import Pool, user_pool_in
from tests.integration.test_console import Browser
from tests.integration.test_console import signed_in as key_signed_in
from tests.integration.test_console_people import PersonBrowser, signed_in
from tests.integration.test_scope_matrix import World, lake, leaks, openapi_scopes, request_of, world

__all__ = ["lake", "world"]  # fixtures used by name
pytestmark = pytest.mark.one_account_per_module

MAKERS: tuple[Role, ...] = ("owner", "admin")  # the roles holding admin: editors and viewers make no keys
CASES = [
    (maker, change, new)
    for maker in MAKERS
    for change, new in [("removed", None), ("left", None), *[("downgraded", role) for role in ROLES]]
    if change != "downgraded" or ROLES.index(new) > ROLES.index(maker)
]


@pytest.fixture
def pool(world, template, monkeypatch) -> Pool:
    return user_pool_in(template, monkeypatch)


def make_key(world: World, caller: str, workspace: str | None = None) -> dict[str, Any]:
    headers = {"x-shortlink-workspace": workspace} if workspace else {}
    body = {"name": "made", "scopes": sorted(ALL_SCOPES)}
    answer = world.call("KeysFunction", "POST", "/keys", "/keys", caller, headers=headers, body=body)
    assert answer["statusCode"] == 201, answer["body"]
    made: dict[str, Any] = json.loads(answer["body"])
    return made


def test_editors_and_viewers_make_no_keys(world, pool):
    for role in ROLES[2:]:
        person, password = pool.member(f"{role}-maker@example.com", world.owner, role)
        token = pool.access_token(person.email, password)
        body = {"name": "made", "scopes": ["links:read"]}
        headers = {"x-shortlink-workspace": world.owner}
        answer = world.call("KeysFunction", "POST", "/keys", "/keys", token, headers=headers, body=body)
        assert (answer["statusCode"], json.loads(answer["body"])["scope"]) == (403, "admin"), role


@pytest.mark.parametrize(("maker_role", "change", "new_role"), CASES)
def test_a_makers_keys_and_their_children_answer_only_what_the_makers_role_now_grants(
    world, pool, handlers, template, maker_role, change, new_role, lake
):
    # Given a member who made a key with the API, and the key's own child
    stays, stays_password = pool.member(
        f"boss-{maker_role}-{change}-{new_role}@example.com".lower(), world.owner, "owner"
    )
    maker, password = pool.member(
        f"maker-{maker_role}-{change}-{new_role}@example.com".lower(), world.owner, maker_role
    )
    made = make_key(world, pool.access_token(maker.email, password), world.owner)
    child = make_key(world, made["key"])
    listed = json.loads(world.call("KeysFunction", "GET", "/keys", "/keys", world.admin)["body"])["keys"]
    makers = {key["key_id"]: key["made_by"] for key in listed}
    assert makers[made["key_id"]] == makers[child["key_id"]] == {"subject": maker.subject, "email": maker.email}
    admins = services.api_key_store().find_by_hash(hash_api_key(world.admin))
    assert admins is not None
    assert makers[admins.key_id] is None  # the admin command's key acts for nobody
    # When they are removed, leave, or are downgraded, through the console
    boss = signed_in(PersonBrowser(handlers, "198.51.100.1"), stays.email, stays_password)
    keys_page = boss.get("/console/keys")["body"]
    assert keys_page.count(f'<td class="maker">{maker.email}</td>') == 2  # the key and its child
    assert '<td class="maker">nobody recorded</td>' in keys_page  # the admin command's
    if change == "removed":
        form = {"csrf": boss.csrf("/console/members"), "confirmed": "yes"}
        answer = boss.post(f"/console/members/{maker.subject}/remove", form)
    elif change == "left":
        leaving = signed_in(PersonBrowser(handlers, "198.51.100.2"), maker.email, password)
        form = {"csrf": leaving.csrf("/console/workspaces"), "workspace_id": world.owner}
        answer = leaving.post("/console/workspace/leave", form)
    else:
        form = {"csrf": boss.csrf("/console/members"), "role": str(new_role)}
        answer = boss.post(f"/console/members/{maker.subject}/role", form)
    assert answer["statusCode"] == 303, answer["body"]
    # Then every keyed route answers both keys as the member's role now allows
    held = frozenset() if new_role is None else scopes_of(new_role) & ALL_SCOPES
    needs = openapi_scopes()
    routes = {(method, route.path): route.function_name for route in template.api().routes for method in route.methods}
    keyed = {route: scopes for route, scopes in needs.items() if scopes}
    for key in (made["key"], child["key"]):
        for route, needed in sorted(keyed.items()):
            method, path = route
            request = request_of(world, method, path)
            answer = world.call(routes[route], method, request.pop("path"), path, key, **request)
            body = answer["body"] or ""
            if new_role is None:
                assert answer["statusCode"] == 401, (route, body)
            elif needed <= held:
                assert answer["statusCode"] < 400 or (route, answer["statusCode"]) == (("GET", "/links/export"), 403), (
                    route, body,
                )  # fmt: skip
            else:
                assert (answer["statusCode"], json.loads(body)["scope"] in needed - held) == (403, True), (route, body)
            assert leaks(body, held) == [], (route, body)
    # And the console takes them no further than the API
    console = Browser(handlers)
    if new_role is None:
        refused = console.post("/console/sign-in", {"api_key": made["key"]})
        assert refused["statusCode"] == 401
        stored = services.api_key_store().find_by_hash(hash_api_key(child["key"]))
        assert stored is not None
        assert stored.revoked
    else:
        pages = key_signed_in(console, child["key"])
        assert (pages.get("/console/keys")["statusCode"] == 200) == ("admin" in held)
