"""Scopes and time: every API route of template.yaml, called by a key of each combination of
scopes, answers nothing those scopes do not grant (PATCH and restore bodies, exports, account
stats, webhook registration included), and refuses (403 naming a scope it lacks) exactly when
the route's OpenAPI security requirement names a scope the key does not hold. No key a key makes
outlives it or holds more scopes; no console session outlives its key or a Sign out. People's
access tokens get what their role's scopes grant, in the workspace they name and no other; a
route only people call takes no key. The console's Domains page and new-workspace form answer
each role (and a key's session) as the role table says."""

import itertools
import json
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from shortlink import wiring as services
from shortlink.access.api_keys import (
    ADMIN,
    ALL_SCOPES,
    LINKS_READ,
    LINKS_WRITE,
    MEMBERS_READ,
    MEMBERS_WRITE,
    STATS_READ,
    hash_api_key,
    issue_api_key,
)
from shortlink.console.sessions import read_session
from shortlink.domains.claims import new_domain
from shortlink.people.invitations import invite
from shortlink.people.model import ROLES, Membership
from shortlink.people.roles import scopes_of
from shortlink.webhooks.endpoints import Endpoint, new_endpoint_id, new_secret
from tests.events import bearer, http_event
from tests.integration.local_lake import local_lake
from tests.integration.people import Pool, user_pool_in
from tests.integration.test_console import Browser, signed_in
from tests.integration.test_console_people import PersonBrowser
from tests.integration.test_console_people import signed_in as person_signed_in

pytestmark = pytest.mark.one_account_per_module
OPENAPI = Path(__file__).resolve().parents[2] / "functions/docs/openapi.json"

# What the account holds, each a string that shows up in an answer only if it was read.
DESTINATION = "https://example.com/matrix-destination-7f3a"
TITLE = "matrix-title-9c1e"
KEY_NAME = "matrix-key-name-51d0"
ENDPOINT_URL = "https://hooks.example.com/matrix-endpoint-2b8e"
MEMBER_EMAIL = "matrix-member-4d2a@example.com"  # a member nobody acts on: listed, never audited
HASH_MARK = "pbkdf2_sha256"
STATS_MARK = "unique_visitors"  # in every stats answer, JSON or CSV
# Which scopes may read what: a mark in an answer to a key without them is a leak.
READ_BY = {DESTINATION: {LINKS_READ}, TITLE: {LINKS_READ}, STATS_MARK: {STATS_READ}, KEY_NAME: {ADMIN}}
READ_BY[ENDPOINT_URL] = {ADMIN}
READ_BY[MEMBER_EMAIL] = {MEMBERS_READ}
LINK_SCOPES = (LINKS_READ, LINKS_WRITE, STATS_READ, ADMIN)
# Every combination of the link scopes and admin, and the members scopes alone, with the viewer's
# scopes and with all (a member is managed only by a caller holding their role's scopes).
SCOPE_SETS = [frozenset(chosen) for n in range(1, 5) for chosen in itertools.combinations(LINK_SCOPES, n)] + [
    frozenset(chosen)
    for chosen in (
        {MEMBERS_READ},
        {MEMBERS_WRITE},  # manages nobody: no role's scopes
        {MEMBERS_WRITE, LINKS_READ, STATS_READ},  # manages viewers
        ALL_SCOPES,
    )
]
VIEWER_SCOPES = scopes_of("viewer")  # the team writes of the matrix act on viewers


def team_write(route: tuple[str, str]) -> bool:
    """A route that manages a member or an invitation: it needs the role's scopes too."""
    method, path = route
    return method != "GET" and path.startswith(("/members", "/invitations"))


def openapi_scopes() -> dict[tuple[str, str], frozenset[str]]:
    """Each route's scopes, from the OpenAPI document's security requirements (a drift test
    keeps the document the functions' own)."""
    document = json.loads(OPENAPI.read_text())
    found = {}
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            requirements = operation.get("security", [])
            found[(method.upper(), path)] = frozenset(
                scope for each in requirements for scope in each.get("apiKey", [])
            )
    return found


@dataclass
class World:
    """The account's things and the keys calling with each scope set."""

    aws: Any
    handlers: dict[str, Callable[..., Any]]
    admin: str = ""
    code: str = ""  # the private link's: a capability
    export_id: str = ""  # a raw export of the account's clicks
    owner: str = ""
    endpoint: str = ""
    doomed: str = ""  # the endpoint DELETE /webhooks/{endpoint_id} is asked to delete next
    domain: str = ""  # a verified domain of the account's: verifying it again asks no DNS
    doomed_domain: str = ""  # the domain DELETE /domains/{domain} is asked to remove next
    keys: dict[frozenset[str], str] = field(default_factory=dict)

    def call(self, function: str, method: str, path: str, route: str, key: str, **request: Any) -> dict[str, Any]:
        names = [part.strip("{}") for part in route.split("/") if part.startswith("{")]
        values = [value for part, value in zip(route.split("/"), path.split("/"), strict=True) if part.startswith("{")]
        event = http_event(
            method, path, route=route, path_parameters=dict(zip(names, values, strict=True)),
            headers={**bearer(key), **request.pop("headers", {})}, **request,
        )  # fmt: skip
        answer: dict[str, Any] = self.handlers[function](event)
        return answer

    def throwaway_key(self) -> str:
        """A key of the account, for DELETE /keys/{key_id} to revoke."""
        store = services.api_key_store()
        made, _ = issue_api_key(store, "throwaway", frozenset({LINKS_READ}), None, datetime.now(UTC), self.owner)
        return made.key_id

    def throwaway_endpoint(self) -> str:
        endpoint = Endpoint(
            self.owner, new_endpoint_id(), ENDPOINT_URL, ("link.created",), (), new_secret(), datetime.now(UTC)
        )
        services.webhook_endpoints().add(endpoint, 1000)
        return endpoint.endpoint_id

    def deletable_endpoint(self) -> str:
        """An endpoint for DELETE /webhooks/{endpoint_id}: the last one made while no call deleted
        it (an account holds 10 at most, and most scope sets may not delete one)."""
        alive = {each.endpoint_id for each in services.webhook_endpoints().list_for_owner(self.owner)}
        if self.doomed not in alive or self.doomed == self.endpoint:
            self.doomed = self.throwaway_endpoint()
        return self.doomed

    def kept_domain(self) -> str:
        if not self.domain:
            self.domain = self.claimed_domain(verified=True)
        return self.domain

    def deletable_domain(self) -> str:
        """A domain for DELETE /domains/{domain}: the last one claimed while no call removed it."""
        if services.domain_claims().claim_of(self.doomed_domain) is None:
            self.doomed_domain = self.claimed_domain(verified=False)
        return self.doomed_domain

    def claimed_domain(self, verified: bool) -> str:
        name, claims, now = f"m{uuid.uuid4().hex[:12]}.example.com", services.domain_claims(), datetime.now(UTC)
        claims.claim(new_domain(name, self.owner, now))
        if verified:
            claims.mark_verified(name, self.owner, now)
        return name

    def throwaway_member(self) -> str:
        """A viewer of the account, for DELETE /members/{subject} to remove."""
        subject = f"sub-{uuid.uuid4()}"
        member = Membership(self.owner, subject, f"{subject}@example.com", "viewer", datetime.now(UTC))
        assert services.memberships().add(member)
        return subject

    def throwaway_invitation(self) -> str:
        """An open invitation of a viewer, for resending or revoking."""
        made, _ = invite(
            services.invitations(), VIEWER_SCOPES | {MEMBERS_WRITE}, "matrix", self.owner,
            f"invited-{uuid.uuid4()}@example.com", "viewer", datetime.now(UTC),
        )  # fmt: skip
        return made.invitation_id

    def kept_export(self) -> str:
        """A raw export of the account's clicks of today, started by its admin key once."""
        if not self.export_id:
            today = datetime.now(UTC).date().isoformat()
            body = {"from": today, "to": today}
            started = self.call("TransferFunction", "POST", "/clicks/exports", "/clicks/exports", self.admin, body=body)
            assert started["statusCode"] == 202, started["body"]
            self.export_id = json.loads(started["body"])["export_id"]
        return self.export_id

    def kept_endpoint(self) -> str:
        """One endpoint of the account that every edit and rotation changes: one it has already,
        if it has one (each POST /webhooks that succeeds takes one of its 10)."""
        if not self.endpoint:
            found = [e for e in services.webhook_endpoints().list_for_owner(self.owner) if e.endpoint_id != self.doomed]
            self.endpoint = found[0].endpoint_id if found else self.throwaway_endpoint()
        return self.endpoint


def request_of(world: World, method: str, route: str) -> dict[str, Any]:
    """A request of each route that succeeds for a key holding its scopes."""
    code = world.code
    match (method, route):
        case ("POST", "/links"):
            return {"path": route, "body": {"url": "https://example.com/new"}}
        case ("POST", "/links/bulk"):
            return {"path": route, "body": {"links": [{"url": "https://example.com/bulk"}]}}
        case ("POST", "/links/import"):
            body = "url,title\r\nhttps://example.com/imported,imported\r\n"
            return {"path": route, "body": body, "headers": {"content-type": "text/csv"}}
        case ("GET", "/links/export"):
            return {"path": route, "query": {"format": "json", "include": "password_hash"}}
        case ("POST", "/keys"):
            return {"path": route, "body": {"name": "child", "scopes": [ADMIN]}}  # what every caller holds
        case ("DELETE", "/keys/{key_id}"):
            return {"path": f"/keys/{world.throwaway_key()}"}
        case ("POST", "/clicks/exports"):
            today = datetime.now(UTC).date().isoformat()
            return {"path": route, "body": {"from": today, "to": today}}
        case ("GET", "/clicks/exports/{export_id}"):
            return {"path": f"/clicks/exports/{world.kept_export()}"}
        case ("POST", "/webhooks"):
            return {"path": route, "body": {"url": "https://hooks.example.com/other", "events": ["link.clicked"]}}
        case ("DELETE", "/webhooks/{endpoint_id}"):
            return {"path": f"/webhooks/{world.deletable_endpoint()}"}
        case ("PATCH", "/webhooks/{endpoint_id}"):
            return {"path": f"/webhooks/{world.kept_endpoint()}", "body": {"tags": ["changed"]}}
        case ("POST", "/webhooks/{endpoint_id}/secret"):
            return {"path": f"/webhooks/{world.kept_endpoint()}/secret"}
        case ("POST", "/links/bulk/changes"):
            return {"path": route, "body": {"links": [{"code": code}], "action": "retag", "add_tags": ["matrix"]}}
        case ("PATCH", "/links/{code}"):
            return {"path": f"/links/{code}", "body": {}}
        case ("PUT", "/links/qr-style" | "/links/{code}/qr-style"):
            return {"path": route.replace("{code}", code), "body": {"margin": 3}}
        case ("PATCH", "/members/{subject}"):
            return {"path": f"/members/{world.throwaway_member()}", "body": {"role": "viewer"}}
        case ("DELETE", "/members/{subject}"):
            return {"path": f"/members/{world.throwaway_member()}"}
        case ("POST", "/invitations"):
            return {"path": route, "body": {"email": f"new-{uuid.uuid4()}@example.com", "role": "viewer"}}
        case ("POST", "/invitations/{invitation_id}/resend"):
            return {"path": f"/invitations/{world.throwaway_invitation()}/resend"}
        case ("DELETE", "/invitations/{invitation_id}"):
            return {"path": f"/invitations/{world.throwaway_invitation()}"}
        case ("PATCH", "/workspace"):
            return {"path": route, "body": {"name": "Matrix"}}
        case ("POST", "/domains"):
            return {"path": route, "body": {"domain": f"m{uuid.uuid4().hex[:12]}.example.com"}}
        case ("POST", "/domains/{domain}/verify"):
            return {"path": f"/domains/{world.kept_domain()}/verify"}
        case ("DELETE", "/domains/{domain}"):
            return {"path": f"/domains/{world.deletable_domain()}"}
        case (_, _) if "{code}" in route:
            return {"path": route.replace("{code}", code)}
    return {"path": route}


# The console's workspace pages beside the API's routes: the Domains page needs the admin scope
# (owners and admins); a new workspace any signed-in person may make (they own it), no API key.
DOMAINS_PAGE = "/console/workspace/domains"
WORKSPACES_PAGE = "/console/workspaces"
MANAGES_DOMAINS = {"GET domains": 200, "POST domains": 303, "POST verify": 303, "POST remove": 303}
NO_DOMAINS = dict.fromkeys(MANAGES_DOMAINS, 403)
ANY_PERSON = {"GET workspaces": 200, "POST workspaces": 303}


def console_answers(world: World, console: PersonBrowser | Browser) -> dict[str, int]:
    """The status of each of those pages' routes for `console`'s session (its workspace's new
    workspace made last: the session moves to it)."""
    csrf = console.csrf()
    added = f"m{uuid.uuid4().hex[:12]}.example.com"
    kept, doomed = world.kept_domain(), world.deletable_domain()
    answers = {
        "GET domains": console.get(DOMAINS_PAGE),
        "POST domains": console.post(DOMAINS_PAGE, {"csrf": csrf, "domain": added}),
        "POST verify": console.post(f"{DOMAINS_PAGE}/{kept}/verify", {"csrf": csrf}),
        "POST remove": console.post(f"{DOMAINS_PAGE}/{doomed}/remove", {"csrf": csrf, "confirmed": "yes"}),
        "GET workspaces": console.get(WORKSPACES_PAGE),
        "POST workspaces": console.post(WORKSPACES_PAGE, {"csrf": csrf, "name": "Matrix made"}),
    }
    for route, answer in answers.items():  # a refused page names none of the workspace's domains
        assert answer["statusCode"] < 400 or kept not in (answer["body"] or ""), (route, answer["body"])
    # Nothing half-done: a domain is added, and removed, exactly when the answer says so
    claims = services.domain_claims()
    added_now, removed_now = claims.claim_of(added) is not None, claims.claim_of(doomed) is None
    assert (added_now, removed_now) == (
        answers["POST domains"]["statusCode"] == 303,
        answers["POST remove"]["statusCode"] == 303,
    )
    return {route: answer["statusCode"] for route, answer in answers.items()}


def leaks(body: str, scopes: frozenset[str]) -> list[str]:
    """The marks in `body` that `scopes` may not read."""
    found = [mark for mark, readers in READ_BY.items() if mark in body and not readers & scopes]
    if HASH_MARK in body and ADMIN not in scopes:
        found.append(HASH_MARK)
    return found


@pytest.fixture
def browser_of(handlers) -> Callable[[str], Browser]:
    """A browser signed in to the console with a key."""
    return lambda key: signed_in(Browser(handlers), key)


@pytest.fixture
def lake(aws, monkeypatch) -> Iterator[None]:
    """The click lake on this machine: its raw exports' routes answer."""
    with local_lake(monkeypatch):
        yield


@pytest.fixture
def world(aws, handlers, template, monkeypatch) -> World:
    monkeypatch.setenv("SHORT_DOMAINS", "sho.rt,go.example")  # a workspace adds its own domains beside them
    services.reset()
    world = World(aws, handlers, admin=aws.new_api_key(KEY_NAME))
    answer = world.call(
        "CreateFunction", "POST", "/links", "/links", world.admin,
        body={"url": DESTINATION, "title": TITLE, "private": True, "password": "correct horse"},
    )  # fmt: skip
    assert answer["statusCode"] == 201, answer["body"]
    world.code = json.loads(answer["body"])["code"]
    world.owner = services.api_key_store().find_by_hash(hash_api_key(world.admin)).owner  # type: ignore[union-attr]
    world.throwaway_endpoint()  # an endpoint to list
    assert services.memberships().add(Membership(world.owner, "sub-kept", MEMBER_EMAIL, "viewer", datetime.now(UTC)))
    store = services.api_key_store()
    for scopes in SCOPE_SETS:
        world.keys[scopes] = issue_api_key(store, "scoped", scopes, None, datetime.now(UTC), world.owner)[1]
    return world


def test_every_route_answers_a_key_only_what_its_scopes_grant(world, template, lake):
    needs = openapi_scopes()
    routes = {(method, route.path): route.function_name for route in template.api().routes for method in route.methods}
    keyed = {route: scopes for route, scopes in needs.items() if scopes}
    # Every route of the template is in the document; those of a key declare its scopes there
    assert set(keyed) <= set(routes)
    # (the console's pages and SCIM, whose own token opens it, are not the API's key routes)
    api_routes = {route for route in routes if not route[1].startswith(("/console", "/scim")) and route[0] != "HEAD"}
    assert api_routes <= set(needs)
    assert keyed[("POST", "/webhooks")] == {ADMIN, LINKS_READ, STATS_READ}  # deliveries carry links and clicks
    checked = 0
    for scopes, (route, declared) in itertools.product(SCOPE_SETS, sorted(keyed.items())):
        method, path = route
        needed = declared | VIEWER_SCOPES if team_write(route) else declared
        request = request_of(world, method, path)
        answer = world.call(routes[route], method, request.pop("path"), path, world.keys[scopes], **request)
        body = answer["body"] or ""
        if needed <= scopes:
            assert answer["statusCode"] < 400 or (route, answer["statusCode"]) == (("GET", "/links/export"), 403), (
                scopes, route, body,
            )  # fmt: skip
        else:
            assert (answer["statusCode"], json.loads(body)["scope"] in needed - scopes) == (403, True), (scopes, route)
        assert leaks(body, scopes) == [], (scopes, route, body)
        if world.code in body and "{code}" not in path:  # the private code: only to a key that reads links
            assert LINKS_READ in scopes, (scopes, route, body)
        checked += 1
    assert checked == len(SCOPE_SETS) * len(keyed)
    # The console's Domains page answers a key's session as its scopes say; a key makes no workspace
    for held, granted in ((frozenset({ADMIN, LINKS_READ}), MANAGES_DOMAINS), (LINK_SCOPES[:2], NO_DOMAINS)):
        console = signed_in(Browser(world.handlers), world.keys[frozenset(held)])
        assert console_answers(world, console) == {**granted, "GET workspaces": 400, "POST workspaces": 400}, held


def test_a_write_only_key_learns_nothing_from_patch_restore_or_the_console_edit_page(world, browser_of):
    writer = world.keys[frozenset({"links:write"})]
    requests: list[tuple[str, str, str, dict[str, Any]]] = [
        ("PATCH", f"/links/{world.code}", "/links/{code}", {"body": {}}),
        ("PATCH", f"/links/{world.code}", "/links/{code}", {"body": {"tags": ["seen"]}}),
        ("POST", f"/links/{world.code}/restore", "/links/{code}/restore", {}),
    ]
    for method, path, route, request in requests:
        answer = world.call("ManageFunction", method, path, route, writer, **request)
        assert (answer["statusCode"], answer.get("body") or "") == (204, ""), (method, path, answer)
    console = browser_of(writer)
    page = console.get(f"/console/links/{world.code}/edit")
    assert page["statusCode"] == 403
    assert DESTINATION not in page["body"]
    assert TITLE not in page["body"]


def test_no_key_outlives_or_outranks_the_key_that_made_it(world):
    ends = datetime.now(UTC) + timedelta(hours=2)
    store = services.api_key_store()
    parent = issue_api_key(store, "expiring", frozenset({ADMIN, LINKS_READ}), ends, datetime.now(UTC), world.owner)[1]

    def create(body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        answer = world.call("KeysFunction", "POST", "/keys", "/keys", parent, body=body)
        return answer["statusCode"], json.loads(answer["body"])

    status, child = create({"name": "forever", "scopes": ["links:read"]})
    assert status == 201, child
    assert abs(datetime.fromisoformat(child["expires_at"]) - ends) < timedelta(seconds=1)
    status, refused = create({"name": "ten-years", "scopes": ["links:read"], "expires_at": "2036-01-01T00:00:00Z"})
    assert (status, refused["message"].split(":")[0]) == (422, "expires_at")
    status, refused = create({"name": "more", "scopes": ["links:write"]})
    assert (status, refused["scope"]) == (403, "links:write")
    listed = json.loads(world.call("KeysFunction", "GET", "/keys", "/keys", parent)["body"])["keys"]
    assert "ten-years" not in [key["name"] for key in listed]  # nothing half-written


def test_the_console_keys_page_makes_no_key_that_outlives_its_maker(world, browser_of):
    ends = datetime.now(UTC) + timedelta(hours=2)
    store = services.api_key_store()
    parent = issue_api_key(store, "expiring", frozenset({ADMIN, LINKS_READ}), ends, datetime.now(UTC), world.owner)[1]
    console = browser_of(parent)
    form = {"csrf": console.csrf(), "name": "ten-years", "scopes": "links:read", "expires_at": "2036-01-01T00:00:00Z"}
    refused = console.post("/console/keys", form)
    assert refused["statusCode"] == 422
    assert "expires_at: must be no later than this key&#39;s own expiry" in refused["body"]
    made = console.post("/console/keys", {**form, "name": "inherits", "expires_at": ""})
    assert made["statusCode"] == 201
    [child] = [key for key in store.list_keys(world.owner) if key.name == "inherits"]
    assert child.expires_at is not None
    assert abs(child.expires_at - ends) < timedelta(seconds=1)
    assert "ten-years" not in [key.name for key in store.list_keys(world.owner)]


def test_no_console_session_outlives_its_key_or_a_sign_out(world, browser_of):
    ends = datetime.now(UTC) + timedelta(hours=1)
    store = services.api_key_store()
    expiring = issue_api_key(store, "short", frozenset({LINKS_READ}), ends, datetime.now(UTC), world.owner)[1]
    console = browser_of(expiring)
    session = read_session(console.cookie, datetime.now(UTC), services.console_session_secret())
    assert session is not None
    assert session.expires_at <= int(ends.timestamp())
    # Sign out ends the session on the server: the cookie, kept, no longer signs anybody in
    kept = console.cookie
    assert console.post("/console/sign-out", {"csrf": console.csrf()})["statusCode"] == 303
    console.cookie = kept
    assert console.get("/console")["headers"]["Location"] == "/console/sign-in?why=ended"
    # A new sign-in works, and ends only its own key's sessions
    other = browser_of(world.admin)
    again = browser_of(expiring)
    assert again.get("/console")["statusCode"] == 200
    assert other.get("/console")["statusCode"] == 200


def test_no_webhook_endpoint_outlives_the_key_that_registered_it(world):
    ends = datetime.now(UTC) + timedelta(hours=3)
    store = services.api_key_store()
    registrar = issue_api_key(store, "hooks", ALL_SCOPES, ends, datetime.now(UTC), world.owner)[1]
    body = {"url": "https://hooks.example.com/expiring", "events": ["link.created"]}
    answer = world.call("WebhookEndpointsFunction", "POST", "/webhooks", "/webhooks", registrar, body=body)
    assert answer["statusCode"] == 201, answer["body"]
    created = json.loads(answer["body"])
    assert abs(datetime.fromisoformat(created["expires_at"]) - ends) < timedelta(seconds=1)
    [stored] = [each for each in services.webhook_endpoints().list_for_owner(world.owner) if each.url == body["url"]]
    assert stored.expires_at is not None
    assert not stored.wants("link.created", (), ends)


@pytest.fixture
def pool(world, template, monkeypatch) -> Pool:
    return user_pool_in(template, monkeypatch)


def test_every_route_answers_a_member_only_what_their_role_grants(world, template, pool, lake):
    needs = openapi_scopes()
    routes = {(method, route.path): route.function_name for route in template.api().routes for method in route.methods}
    keyed = {route: scopes for route, scopes in needs.items() if scopes}
    checked = 0
    for role in ROLES:
        person, password = pool.member(f"{role}@example.com", world.owner, role)
        token = pool.access_token(person.email, password)
        held = scopes_of(role)
        for route, declared in sorted(keyed.items()):
            method, path = route
            needed = declared | VIEWER_SCOPES if team_write(route) else declared
            request = request_of(world, method, path)
            headers = {"x-shortlink-workspace": world.owner, **request.pop("headers", {})}
            answer = world.call(routes[route], method, request.pop("path"), path, token, headers=headers, **request)
            body = answer["body"] or ""
            if needed <= held:  # an export of passwords' hashes needs admin beyond the route's scope
                assert answer["statusCode"] < 400 or (route, answer["statusCode"]) == (("GET", "/links/export"), 403), (
                    role, route, body,
                )  # fmt: skip
            else:
                assert (answer["statusCode"], json.loads(body)["scope"] in needed - held) == (403, True), (role, route)
            assert leaks(body, held) == [], (role, route, body)
            checked += 1
        # In the console: the Domains page for owners and admins; a new workspace for anyone
        console = person_signed_in(PersonBrowser(world.handlers), person.email, password)
        granted = MANAGES_DOMAINS if ADMIN in held else NO_DOMAINS
        assert console_answers(world, console) == {**granted, **ANY_PERSON}, role
    assert checked == len(ROLES) * len(keyed)


def test_a_token_acts_only_in_a_workspace_it_names_and_belongs_to(world, pool):
    person, password = pool.member("editor@example.com", world.owner, "editor")
    token = pool.access_token(person.email, password)
    other_key = world.call("KeysFunction", "GET", "/keys", "/keys", world.admin)  # the admin's own answer
    assert other_key["statusCode"] == 200
    outsider, outsider_password = pool.member("outsider@example.com", "another-workspace", "owner")
    outsider_token = pool.access_token(outsider.email, outsider_password)
    for caller, headers, status in [
        (token, {}, 403),  # no workspace named
        (token, {"x-shortlink-workspace": "another-workspace"}, 403),  # not one of theirs
        (outsider_token, {"x-shortlink-workspace": world.owner}, 403),  # a member elsewhere only
        (token[:-4] + "AAAA", {"x-shortlink-workspace": world.owner}, 401),  # its signature broken
    ]:
        answer = world.call("ManageFunction", "GET", "/links", "/links", caller, headers=headers)
        assert answer["statusCode"] == status, (headers, answer["body"])
        assert DESTINATION not in answer["body"]
        assert TITLE not in answer["body"]
    allowed = world.call(
        "ManageFunction", "GET", "/links", "/links", token, headers={"x-shortlink-workspace": world.owner}
    )
    assert allowed["statusCode"] == 200
    assert TITLE in allowed["body"]


def test_a_route_only_people_call_takes_no_key_and_tells_a_person_their_workspaces(world, pool):
    for key in [world.admin, *world.keys.values()]:
        answer = world.call("KeysFunction", "GET", "/people/me", "/people/me", key)
        assert answer["statusCode"] == 401, answer["body"]
    person, password = pool.member("viewer@example.com", world.owner, "viewer")
    pool.member("viewer@example.com-elsewhere".replace("-elsewhere", ".org"), "ws-other", "owner")
    token = pool.access_token(person.email, password)
    answer = world.call("KeysFunction", "GET", "/people/me", "/people/me", token)
    assert answer["statusCode"] == 200, answer["body"]
    me = json.loads(answer["body"])
    assert me == {
        "subject": person.subject,
        "workspaces": [{"workspace_id": world.owner, "role": "viewer", "scopes": ["links:read", "stats:read"]}],
    }
