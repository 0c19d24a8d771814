"""A workspace's own short domains through the handlers (moto): added, verified by a TXT record
that a real DNS server on loopback answers (tools/developers/txt_records.py, queried through the
stack's dnspython adapter), used for its links and served by the redirect only on that host;
claimed by one workspace at a time (on dynalite too), removed only once no live link is on it;
and the bulk move of links to a domain (docs/domains.md, Workspace domains)."""

import json
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Any

import boto3
import pytest

from shortlink import wiring as services
from shortlink.access.api_keys import hash_api_key
from shortlink.adapters.dynamodb.domain_claims import DynamoDomainClaims
from shortlink.audit.model import AuditEntry
from shortlink.audit.queries import AuditQuery
from shortlink.domains.claims import WorkspaceDomain, new_domain
from shortlink.domains.errors import DomainTaken
from shortlink.wiring import resources
from tests.aws_calls import recording_aws_calls
from tests.events import bearer, http_event
from tests.integration.conftest import use_moto_credentials
from tests.integration.test_audit_log import dynalite
from tests.integration.test_bulk_create import bulk
from tests.integration.test_console import Browser, create, scoped_key, signed_in
from tests.integration.test_import_export import import_file
from tests.integration.test_link_events import drained, link_changes
from tools.developers.devstack.resources import create_tables
from tools.developers.txt_records import TxtServer

__all__ = ["dynalite"]  # a fixture, used by name

DOMAIN = "links.acme.test"
PAGE = "/console/workspace/domains"


@pytest.fixture
def dns(monkeypatch) -> Iterator[TxtServer]:
    """An authoritative DNS server on a loopback port, which the stack's resolver is pointed at."""
    server = TxtServer().start()
    monkeypatch.setenv("DNS_RESOLVER", server.address)
    services.reset()
    yield server
    server.stop()


@pytest.fixture
def stack(aws, monkeypatch):
    """As deployed with Domains=sho.rt,go.example: workspaces add their own beside them."""
    monkeypatch.setenv("SHORT_DOMAINS", "sho.rt,go.example")
    services.reset()
    return aws


def call(handlers, method: str, path: str, key: str, body: Any = None, route=None, query=None, **parameters):
    event = http_event(
        method, path, route=route, path_parameters=parameters or None, headers=bearer(key), body=body, query=query
    )
    answer = handlers["ManageFunction"](event)
    return answer["statusCode"], json.loads(answer["body"]) if answer.get("body") else None


def add(handlers, key: str, domain: str):
    return call(handlers, "POST", "/domains", key, {"domain": domain})


def verify(handlers, key: str, domain: str):
    return call(handlers, "POST", f"/domains/{domain}/verify", key, route="/domains/{domain}/verify", domain=domain)


def remove(handlers, key: str, domain: str):
    return call(handlers, "DELETE", f"/domains/{domain}", key, route="/domains/{domain}", domain=domain)


def move(handlers, key: str, links: list[dict[str, str]], to_domain: str):
    body = {"links": links, "action": "move", "to_domain": to_domain}
    return call(handlers, "POST", "/links/bulk/changes", key, body)


def verified(handlers, dns: TxtServer, key: str, domain: str) -> None:
    """`domain` added by `key`'s workspace, its record published and verified."""
    status, added = add(handlers, key, domain)
    assert status == 201, added
    dns.zone.records[added["record"]["name"]] = [added["record"]["value"]]
    assert verify(handlers, key, domain)[0] == 200


def test_a_domain_verified_through_dns_takes_its_workspaces_links_and_no_one_elses(stack, handlers, dns, api):
    # Given workspace A adding its domain in any spelling browsers read the same
    a, b = stack.new_api_key(), stack.new_api_key()
    status, added = add(handlers, a, "Links.ACME.test.")
    assert status == 201, added
    assert (added["domain"], added["verified"], added["record"]["name"]) == (DOMAIN, False, f"_shortlink.{DOMAIN}")
    # Until verified, no link may be created on it
    assert api.create(a, domain=DOMAIN).status == 422
    # Verify before the record exists: 409 naming the record; DNS was asked
    status, refused = verify(handlers, a, DOMAIN)
    assert (status, refused["error"]) == (409, "domain_not_verified")
    assert f"_shortlink.{DOMAIN}" in refused["message"]
    assert dns.zone.queries == 1
    # A record holding another token does not verify it either
    dns.zone.records[f"_shortlink.{DOMAIN}"] = ["shortlink-verification=someone-elses", "v=spf1 -all"]
    assert verify(handlers, a, DOMAIN)[0] == 409
    # Published: verified, and the list says so
    dns.zone.records[f"_shortlink.{DOMAIN}"].append(added["record"]["value"])
    status, shown = verify(handlers, a, DOMAIN)
    assert (status, shown["verified"]) == (200, True)
    listed = call(handlers, "GET", "/domains", a)[1]["domains"]
    assert [(each["domain"], each["verified"]) for each in listed] == [(DOMAIN, True)]
    # A's link on it: its short URL on the domain, served there by the key <host>/<code>
    link = api.new_link(a, url="https://example.com/acme", slug="spring", domain=DOMAIN)
    assert (link["domain"], link["short_url"]) == (DOMAIN, f"https://{DOMAIN}/spring")
    assert api.follow("spring", host=DOMAIN).headers["location"] == "https://example.com/acme"
    assert api.follow("spring", host=f"{DOMAIN}.").status == 302  # fully qualified: the same host
    with recording_aws_calls() as calls:  # a cached hit on it reads nothing, as on any domain
        assert api.follow("spring", host=DOMAIN).status == 302
    assert [call for call in calls.counts() if call[0] == "dynamodb"] == []
    assert api.follow("spring", host="sho.rt").status == 404
    # B cannot claim it, nor create a link on it; B's own link is never served on A's host
    taken = {"error": "domain_taken", "message": f"domain {DOMAIN}: another workspace has claimed it"}
    assert add(handlers, b, DOMAIN) == (409, taken)
    refused_create = api.create(b, domain=DOMAIN)
    assert refused_create.status == 422
    assert "verified domain of this workspace" in refused_create.json()["message"]
    own = api.new_link(b, url="https://example.com/b")
    assert api.follow(own["code"], host=DOMAIN).status == 404
    assert api.follow(own["code"], host="sho.rt.").status == 302  # the stack's default domain, fully qualified
    # Nor does B see or verify or remove A's domain
    assert call(handlers, "GET", "/domains", b)[1] == {"domains": []}
    assert verify(handlers, b, DOMAIN)[0] == 404
    assert remove(handlers, b, DOMAIN)[0] == 404
    # Each change is in A's audit log
    entries = [(e["action"], e["target"]["id"]) for e in drained_entries(stack) if e["action"].startswith("domain.")]
    assert entries == [("domain.added", DOMAIN), ("domain.verified", DOMAIN)]


def drained_entries(stack) -> list[dict[str, Any]]:
    return [event["data"] for event in drained(stack) if event["type"] == "audit.recorded"]


def test_of_workspaces_claiming_one_domain_the_first_wins_and_the_others_are_told(stack, handlers):
    # In turn through the handler: one Lambda environment answers one request at a time, and its
    # resolver holds that request. Claims at once are decided by one conditional put (on dynalite below).
    keys = [stack.new_api_key() for _ in range(4)]
    answers = [add(handlers, key, "race.example.com") for key in keys]
    assert [status for status, _ in answers] == [201, 409, 409, 409]
    assert {body["message"] for _, body in answers[1:]} == {"domain race.example.com: another workspace has claimed it"}


def test_a_domain_with_live_links_is_not_removed_and_a_removed_one_is_free_again(stack, handlers, dns, api):
    a, b = stack.new_api_key(), stack.new_api_key()
    verified(handlers, dns, a, DOMAIN)
    link = api.new_link(a, domain=DOMAIN)
    # Removal is refused while the link is live, and says so
    status, refused = remove(handlers, a, DOMAIN)
    assert (status, refused["error"]) == (409, "domain_in_use")
    assert refused["message"].startswith(f"domain {DOMAIN}: 1 live link uses it; move them to another domain")
    # Deleted, the link no longer holds it: the claim is released and B may claim it
    path = f"/links/{link['code']}"
    on_domain = {"domain": DOMAIN}
    deleted = call(handlers, "DELETE", path, a, route="/links/{code}", query=on_domain, code=link["code"])
    assert deleted[0] == 204, deleted
    assert remove(handlers, a, DOMAIN)[0] == 204
    assert add(handlers, b, DOMAIN)[0] == 201
    # A's deleted link on it cannot come back on what is now B's domain
    restore = f"{path}/restore"
    status, body = call(handlers, "POST", restore, a, route="/links/{code}/restore", query=on_domain, code=link["code"])
    assert status == 422, body


def test_a_bulk_move_takes_links_to_a_verified_domain_all_or_nothing(stack, handlers, dns, api):
    a, b = stack.new_api_key(), stack.new_api_key()
    verified(handlers, dns, a, DOMAIN)
    api.new_link(a, url="https://example.com/slug", slug="sale")
    generated = api.new_link(a, url="https://example.com/generated", domain="go.example")
    blocker = api.new_link(a, url="https://example.com/blocker", slug="Sale-2", domain=DOMAIN)
    taken = api.new_link(a, url="https://example.com/taken", slug="sale-2")
    drained(stack)
    selected = [{"code": "sale"}, {"code": generated["code"], "domain": "go.example"}, {"code": "sale-2"}]
    # One link's code is taken there: nothing moves, the report names it
    status, refused = move(handlers, a, selected, DOMAIN)
    assert (status, refused["error"]) == (422, "bulk_refused")
    assert [(r["code"], r["status"], r["error"]) for r in refused["refused"]] == [("sale-2", 409, "code_taken")]
    assert api.follow("sale", host="sho.rt").status == 302
    # Without it, both move: each keeps its code, answers on the new host only, one entry and event each
    status, moved = move(handlers, a, selected[:2], DOMAIN)
    assert status == 200, moved
    assert [(each["code"], each["short_url"]) for each in moved["links"]] == [
        ("sale", f"https://{DOMAIN}/sale"),
        (generated["code"], f"https://{DOMAIN}/{generated['code']}"),
    ]
    services.forget_cached_links()  # as in a new environment (one that served it keeps it to its TTL)
    assert api.follow("sale", host=DOMAIN).headers["location"] == "https://example.com/slug"
    assert api.follow("sale", host="sho.rt").status == 404
    assert api.follow(generated["code"], host="go.example").status == 404
    assert link_changes(drained(stack)) == [
        ("link.updated", "sale"), ("audit.recorded", "link.moved"),
        ("link.updated", generated["code"]), ("audit.recorded", "link.moved"),
    ]  # fmt: skip
    # The slug's claim went with it: a look-alike slug on the domain is taken
    assert api.create(a, slug="SALE", domain=DOMAIN).status == 409
    # Only to a domain the workspace may use: B's links cannot go to A's, nor A's to an unknown one
    other = api.new_link(b, url="https://example.com/b")
    status, body = move(handlers, b, [{"code": other["code"]}], DOMAIN)
    assert (status, body["error"]) == (422, "invalid_request")
    assert move(handlers, a, [{"code": taken["code"]}], "unknown.example")[0] == 422
    assert blocker["domain"] == DOMAIN


def test_a_link_to_a_verified_workspace_domain_is_refused_as_a_loop_wherever_it_is_written(
    stack, handlers, dns, api, monkeypatch
):
    # Given a link to links.acme.test written before its workspace verified the domain
    a, b = stack.new_api_key(), stack.new_api_key()
    early = api.new_link(a, url=f"https://{DOMAIN}/early", slug="early")
    verified(handlers, dns, a, DOMAIN)
    loop = (
        f"url points back at this shortener (a redirect loop): {DOMAIN} is a workspace's short domain, which it serves"
    )
    # Then a link to it, by any workspace and in any spelling browsers read alike, is refused
    for key, url in ((a, f"https://{DOMAIN}/x"), (b, "http://LINKS.acme.test.:443/x")):
        assert api.create(key, url=url).status_and_json() == (422, {"error": "invalid_url", "message": loop})
    # at edit, its other destinations too
    assert api.patch(early["code"], a, url=f"https://{DOMAIN}/y").status == 422
    assert loop in api.patch(early["code"], a, expired_url=f"https://{DOMAIN}/gone").json()["message"]
    # at import, as the record's own failure
    status, report = import_file(handlers, b, f"url,slug\nhttps://{DOMAIN}/z,imported-loop\n")
    assert (status, report["failed"], loop in report["results"][0]["message"]) == (200, 1, True), report
    # in the console's form
    console = signed_in(Browser(handlers), b)
    assert (answer := create(console, url=f"https://{DOMAIN}/c"))["statusCode"] == 422
    assert f"{DOMAIN} is a workspace&#39;s short domain" in answer["body"]
    # and moved onto that domain, the link written before would send its visitors to itself: nothing moves
    status, body = move(handlers, a, [{"code": "early"}], DOMAIN)
    assert (status, [(each["code"], each["error"]) for each in body["refused"]]) == (422, [("early", "invalid_url")])
    assert api.follow("early", host="sho.rt").status == 302
    # A bulk create's links to one site read its claim once; the redirect reads none
    claims, reads = services.domain_claims_here(), []
    read = claims.claim_of

    def counted(name: str) -> WorkspaceDomain | None:
        reads.append(name)
        return read(name)

    monkeypatch.setattr(claims, "claim_of", counted)
    links = {"links": [{"url": f"https://example.com/{n}"} for n in range(3)]}
    created = bulk(handlers, a, links)[1]
    assert (created["created"], reads) == (3, ["example.com"])
    assert api.follow(created["results"][0]["link"]["code"]).status == 302
    assert reads == ["example.com"]


def test_hostile_domain_names_are_refused_naming_the_rule(stack, handlers):
    key = stack.new_api_key()
    refusals = {
        "127.0.0.1": "an IP address",
        "0x7f.1": "an IP address (127.0.0.1)",
        "[::1]": "an IP address",
        "links.acme.test:8443": "without a port",
        "https://links.acme.test/": "a host name only",
        "go.example": "this stack's own domain",
        "deep.go.example": "this stack's own domain",
        "localhost": "two labels",
    }
    for typed, why in refusals.items():
        status, body = add(handlers, key, typed)
        assert (status, body["error"]) == (422, "invalid_request"), typed
        assert why in body["message"], (typed, body["message"])
    items = stack.dynamodb.scan(TableName=resources().api_keys_table.value)["Items"]
    assert [item for item in items if item["key_hash"]["S"].startswith("domain#")] == []  # nothing claimed


def test_on_dynalite_one_conditional_put_decides_the_claim(dynalite, template, monkeypatch):
    # Given the API keys table on dynalite (which refuses what DynamoDB refuses), four claimers at once
    use_moto_credentials(monkeypatch)
    monkeypatch.setenv("AWS_ENDPOINT_URL_DYNAMODB", dynalite)
    client = boto3.client("dynamodb", endpoint_url=dynalite)
    table = "ApiKeysTable"
    if table not in client.list_tables()["TableNames"]:
        create_tables(template, client)
    claims, now = DynamoDomainClaims(table), datetime.now(UTC)

    def claim(workspace: str) -> bool:
        try:
            claims.claim(new_domain("dyn.example.com", workspace, now))
        except DomainTaken:
            return False
        return True

    with ThreadPoolExecutor(4) as pool:
        won = list(pool.map(claim, ["w1", "w2", "w3", "w4"]))
    # Then one wins; verification, listing and release work against the real expressions
    assert won.count(True) == 1
    winner = ["w1", "w2", "w3", "w4"][won.index(True)]
    assert [d.name for d in claims.of_workspace(winner)] == ["dyn.example.com"]
    assert claims.mark_verified("dyn.example.com", winner, now).verified
    with pytest.raises(DomainTaken, match="this workspace has added it already"):
        claims.claim(new_domain("dyn.example.com", winner, now))
    claims.release("dyn.example.com", winner)
    assert claims.claim_of("dyn.example.com") is None


def test_the_console_domains_page_adds_verifies_moves_and_removes_for_admins_only(stack, handlers, dns, api):
    # Given a signed-in admin key, and an editor's key of the same workspace
    admin = stack.new_api_key()
    owner = services.api_key_store().find_by_hash(hash_api_key(admin)).owner  # type: ignore[union-attr]
    console = signed_in(Browser(handlers), admin)
    editor = signed_in(Browser(handlers), scoped_key("links:read", "links:write", owner=owner))
    # Only the admin finds the page
    assert 'id="domains-page"' in console.get("/console")["body"]
    assert 'id="domains-page"' not in editor.get("/console")["body"]
    assert editor.get(PAGE)["statusCode"] == 403
    # A refused name is answered on the page, naming the rule
    refused = console.post(PAGE, {"csrf": console.csrf(PAGE), "domain": "127.1"})
    assert refused["statusCode"] == 422
    assert "an IP address (127.0.0.1) cannot be a short domain" in refused["body"]
    # Added: the page shows the TXT record to publish; verified once it is published
    assert console.post(PAGE, {"csrf": console.csrf(PAGE), "domain": DOMAIN})["statusCode"] == 303
    [claim] = services.domain_claims().of_workspace(owner)
    assert f"{claim.record_value}</code>" in console.get(PAGE)["body"]
    not_yet = console.post(f"{PAGE}/{DOMAIN}/verify", {"csrf": console.csrf(PAGE)})
    assert (not_yet["statusCode"], f"no TXT record at _shortlink.{DOMAIN}" in not_yet["body"]) == (409, True)
    dns.zone.records[claim.record_name] = [claim.record_value]
    assert console.post(f"{PAGE}/{DOMAIN}/verify", {"csrf": console.csrf(PAGE)})["statusCode"] == 303
    assert "verified <time" in console.get(PAGE)["body"]
    # The bulk form moves a ticked link there
    link = api.new_link(admin, slug="console-move")
    ticked: dict[str, str | list[str]] = {
        "csrf": console.csrf(), "selected": ["/console-move"], "action": "move", "to_domain": DOMAIN,
    }  # fmt: skip
    assert console.post("/console/links/bulk/changes", ticked)["statusCode"] == 303
    assert services.link_repository().get(f"{DOMAIN}/{link['code']}") is not None
    # Remove asks first, then is refused while the link is live
    asked = console.post(f"{PAGE}/{DOMAIN}/remove", {"csrf": console.csrf(PAGE)})
    assert (asked["statusCode"], "Remove links.acme.test from this workspace?" in asked["body"]) == (200, True)
    confirmed = {"csrf": console.csrf(PAGE), "confirmed": "yes"}
    in_use = console.post(f"{PAGE}/{DOMAIN}/remove", confirmed)
    assert (in_use["statusCode"], "1 live link uses it" in in_use["body"]) == (409, True)
    assert [entry.action for entry in recent_entries(owner)][:3] == ["link.moved", "link.created", "domain.verified"]


def recent_entries(owner: str) -> list[AuditEntry]:
    return services.audit_trail().page(owner, AuditQuery(limit=10)).entries
