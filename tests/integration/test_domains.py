"""Several short domains on one stack (moto): a link belongs to one domain, the same slug may
live on two, each domain resolves only its own links from a host a visitor cannot forge, and
each has its own fallback pages and app-link files."""

import json
import logging

import pytest

from shortlink import wiring as services
from shortlink.wiring import resources
from tests.api_client import LANDING_PAGE
from tests.events import bearer, http_event

EDGE_SECRET = "an-edge-secret-of-at-least-32-characters"
SETTINGS = {
    "go.example": {
        "root_url": "https://example.com/home",
        "not_found_url": "https://example.com/missing",
        "apple_app_site_association": {"applinks": {"details": []}},
        "assetlinks": [{"relation": ["delegate_permission/common.handle_all_urls"], "target": {}}],
    }
}


@pytest.fixture
def two_domains(aws, monkeypatch):
    """As deployed with Domains=sho.rt,go.example and a DomainSettingsParameter."""
    monkeypatch.setenv("SHORT_DOMAINS", "sho.rt,go.example")
    monkeypatch.setenv("DOMAIN_SETTINGS", json.dumps(SETTINGS))
    services.reset()
    return aws


def on_host(event, host: str):
    event["requestContext"]["domainName"] = host
    return event


def manage(handlers, key: str, path: str, route: str, query=None, **path_parameters):
    event = http_event("GET", path, route=route, headers=bearer(key), query=query, path_parameters=path_parameters)
    answer = handlers["ManageFunction"](event)
    return answer["statusCode"], answer["body"]


def test_the_same_slug_on_two_domains_is_two_links(two_domains, handlers, api):
    # Given one key creating "promo" on the default domain and on go.example
    key = two_domains.new_api_key()
    status, default = api.create(key, slug="promo", url="https://example.com/a").status_and_json()
    assert status == 201
    status, other = api.create(key, slug="promo", url="https://example.com/b", domain="go.example").status_and_json()
    assert status == 201
    # Then each shows its own domain, and a third "promo" on go.example is taken
    assert (default["domain"], default["short_url"]) == ("sho.rt", "https://sho.rt/promo")
    assert (other["domain"], other["short_url"]) == ("go.example", "https://go.example/promo")
    assert api.create(key, slug="Promo", domain="go.example").status == 409
    # The default domain's item keeps its plain key; the other's is keyed host/code
    keys = {item["code"]["S"] for item in two_domains.dynamodb.scan(TableName=resources().links_table.value)["Items"]}
    assert {"promo", "go.example/promo"} <= keys
    # And each host follows its own link, an unknown host none
    assert api.follow("promo", host="sho.rt").headers["location"] == "https://example.com/a"
    assert api.follow("promo", host="go.example").headers["location"] == "https://example.com/b"
    assert api.follow("promo", host="elsewhere.example").status == 404
    # A path naming the other domain's key reaches nothing (API Gateway decodes %2F)
    assert api.follow("go.example/promo", host="sho.rt").status == 404


def test_a_forged_host_never_reaches_another_domains_links(two_domains, handlers, monkeypatch, api):
    # Given a link only on go.example, and the edge in front
    monkeypatch.setenv("EDGE_SECRET", EDGE_SECRET)
    services.reset()
    key = two_domains.new_api_key()
    assert api.create(key, slug="only-go", domain="go.example").status == 201
    # A direct call to the default domain naming go.example in Host or X-Shortlink-Host: not found
    assert api.follow("only-go", host="sho.rt", headers={"host": "go.example"}).status == 404
    assert api.follow("only-go", host="sho.rt", headers={"x-shortlink-host": "go.example"}).status == 404
    # Through the edge (its secret), the viewer's host it sets is believed
    through_edge = {"x-shortlink-host": "go.example", "x-shortlink-edge-secret": EDGE_SECRET}
    api_host = "api.execute-api.us-east-1.amazonaws.com"
    assert api.follow("only-go", host=api_host, headers=through_edge).status == 302
    # Through an edge of several domains without the host it names: no domain's link at all
    missing = {"x-shortlink-edge-secret": EDGE_SECRET}
    assert api.create(key, slug="only-go").status == 201  # the default domain's own "only-go"
    assert api.follow("only-go", host=api_host, headers=missing).status == 404


def test_one_domain_behind_the_edge_serves_its_links_though_no_function_names_the_host(aws, handlers, monkeypatch, api):
    # Given a stack of one domain behind the edge: CloudFront adds its secret, and no viewer-request
    # function (template.yaml deploys it only for several domains) names the viewer's host
    monkeypatch.setenv("SHORT_DOMAINS", "sho.rt")
    monkeypatch.setenv("EDGE_SECRET", EDGE_SECRET)
    services.reset()
    key = aws.new_api_key()
    assert api.create(key, slug="edge", crawlable=True).status == 201
    api_host = "api.execute-api.us-east-1.amazonaws.com"
    edge = {"x-shortlink-edge-secret": EDGE_SECRET}
    # Then its links, robots.txt and root are the default domain's, as on its own custom domain
    answer = api.follow("edge", host=api_host, headers=edge)
    assert (answer.status, answer.headers["location"]) == (302, LANDING_PAGE)
    robots = handlers["RedirectFunction"](on_host(http_event("GET", "/robots.txt", headers=edge), api_host))
    assert (robots["statusCode"], robots["body"]) == (200, "User-agent: *\nAllow: /edge$\nDisallow: /\n")
    assert handlers["RedirectFunction"](on_host(http_event("GET", "/", headers=edge), api_host))["statusCode"] == 404
    # And a host a viewer names itself is not read: there is no function to have set it
    named = api.follow("edge", host=api_host, headers={**edge, "x-shortlink-host": "elsewhere.example"})
    assert (named.status, named.headers["location"]) == (302, LANDING_PAGE)


def test_lists_qr_codes_and_stats_follow_the_links_domain(two_domains, handlers, api):
    key = two_domains.new_api_key()
    api.create(key, slug="a1")
    api.create(key, slug="a1", domain="go.example")
    api.create(key, slug="b2", domain="go.example")
    status, body = manage(handlers, key, "/links", "/links", query={"domain": "go.example"})
    assert status == 200
    assert sorted(link["short_url"] for link in json.loads(body)["links"]) == [
        "https://go.example/a1",
        "https://go.example/b2",
    ]
    status, body = manage(handlers, key, "/links", "/links", query={"domain": "sho.rt"})
    assert [link["short_url"] for link in json.loads(body)["links"]] == ["https://sho.rt/a1"]
    assert len(json.loads(manage(handlers, key, "/links", "/links")[1])["links"]) == 3
    # One link's routes take ?domain=
    status, body = manage(handlers, key, "/links/b2", "/links/{code}", {"domain": "go.example"}, code="b2")
    assert (status, json.loads(body)["url"]) == (200, LANDING_PAGE)
    assert manage(handlers, key, "/links/b2", "/links/{code}", code="b2")[0] == 404
    status, svg = manage(handlers, key, "/links/b2/qr", "/links/{code}/qr", {"domain": "go.example"}, code="b2")
    assert status == 200
    assert svg.startswith("<?xml")
    status, body = manage(handlers, key, "/links/b2/stats", "/links/{code}/stats", {"domain": "go.example"}, code="b2")
    assert (status, json.loads(body)["clicks"]) == (200, 0)


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("domain", "nope.example", "domain must be one of this stack's domains (sho.rt, go.example)"),
        ("domain", 7, "domain: Input should be a valid string"),
    ],
)
def test_a_domain_the_stack_does_not_serve_is_refused(two_domains, handlers, field, value, message, api):
    key = two_domains.new_api_key()
    status, body = api.create(key, **{field: value}).status_and_json()
    assert (status, body["error"]) == (422, "invalid_request")
    assert message in body["message"]
    assert two_domains.item_count(resources().links_table.value) == 0
    status, body = manage(handlers, key, "/links", "/links", query={"domain": "nope.example"})
    assert status == 422
    assert "domain" in json.loads(body)["message"]


def test_fallback_pages_and_app_links_per_domain(two_domains, handlers, api):
    def visit(path: str, route: str, host: str, **path_parameters):
        event = http_event("GET", path, route=route, path_parameters=path_parameters)
        return handlers["RedirectFunction"](on_host(event, host))

    # go.example has a root URL and a not-found URL; sho.rt neither
    root = visit("/", "/", "go.example")
    assert (root["statusCode"], root["headers"]["Location"]) == (302, "https://example.com/home")
    assert visit("/", "/", "sho.rt")["statusCode"] == 404
    missing = api.follow("no-such-code", host="go.example")
    assert (missing.status, missing.headers["location"]) == (302, "https://example.com/missing")
    # Never cached (a later link on the code takes over) and, as a link's redirect, never indexed
    assert (root["headers"]["Cache-Control"], root["headers"]["X-Robots-Tag"]) == ("no-store", "noindex")
    assert (missing.headers["cache-control"], missing.headers["x-robots-tag"]) == ("no-store", "noindex")
    assert api.follow("no-such-code", host="sho.rt").status == 404
    # App-link files, as JSON, only where configured
    for name, expected in (("apple-app-site-association", dict), ("assetlinks.json", list)):
        answer = visit(f"/.well-known/{name}", "/.well-known/{file}", "go.example", file=name)
        assert answer["statusCode"] == 200
        assert answer["headers"]["Content-Type"] == "application/json"
        assert isinstance(json.loads(answer["body"]), expected)
        assert visit(f"/.well-known/{name}", "/.well-known/{file}", "sho.rt", file=name)["statusCode"] == 404
    assert visit("/.well-known/x", "/.well-known/{file}", "go.example", file="x")["statusCode"] == 404


def test_unreadable_domain_settings_serve_the_plain_pages(two_domains, handlers, monkeypatch, caplog):
    # Given settings to be read from an SSM parameter that does not exist
    monkeypatch.delenv("DOMAIN_SETTINGS")
    monkeypatch.setenv("DOMAIN_SETTINGS_PARAMETER", "/shortlink/test/no-such-domains")
    services.reset()
    event = http_event("GET", "/", route="/")
    # When a visitor opens go.example's root and one of its app-link files
    root = handlers["RedirectFunction"](on_host(event, "go.example"))
    path, route = "/.well-known/assetlinks.json", "/.well-known/{file}"
    well_known = http_event("GET", path, route=route, path_parameters={"file": "assetlinks.json"})
    with caplog.at_level(logging.ERROR):
        file = handlers["RedirectFunction"](on_host(well_known, "go.example"))
    # Then both get the plain 404 page, never a 500, and the log says why
    assert (root["statusCode"], file["statusCode"]) == (404, 404)
    assert "domain settings not readable" in caplog.text


def test_a_links_expired_url_answers_its_410s_and_the_domains_not_found_url_its_404s(two_domains, handlers, api):
    # Given, on go.example (whose not-found URL is set), a used-up link with a fallback of its own
    key = two_domains.new_api_key()
    fields = {"slug": "once", "max_clicks": 1, "expired_url": "https://example.com/over", "domain": "go.example"}
    assert api.create(key, **fields).status == 201
    assert api.follow("once", host="go.example").headers["location"] == LANDING_PAGE
    # Then its 410 goes to the link's expired_url, an unknown code to the domain's not-found URL
    assert api.follow("once", host="go.example").headers["location"] == "https://example.com/over"
    assert api.follow("nothing", host="go.example").headers["location"] == "https://example.com/missing"
    # And the budget taken is the go.example link's: the same code on sho.rt is another link
    assert api.create(key, slug="once", max_clicks=1).status == 201
    assert api.follow("once", host="sho.rt").status == 302


def test_robots_txt_allows_each_domains_own_crawlable_links(two_domains, handlers, api):
    key = two_domains.new_api_key()
    api.create(key, slug="seen", crawlable=True)
    api.create(key, slug="also", crawlable=True, domain="go.example")
    api.create(key, slug="hidden", domain="go.example")

    def robots(host: str):
        return handlers["RedirectFunction"](on_host(http_event("GET", "/robots.txt"), host))

    assert robots("sho.rt")["body"] == "User-agent: *\nAllow: /seen$\nDisallow: /\n"
    assert robots("go.example")["body"] == "User-agent: *\nAllow: /also$\nDisallow: /\n"
    # Another host may be a workspace's domain: only its own crawlable links are allowed (none here)
    assert robots("elsewhere.example")["body"] == "User-agent: *\nDisallow: /\n"


def test_an_export_of_another_domains_link_imports_back_to_that_domain(two_domains, handlers, api):
    # Given a link on go.example, exported as JSON and as CSV
    key = two_domains.new_api_key()
    api.create(key, slug="promo", url="https://example.com/b", domain="go.example", tags=["x"])

    def transfer(method: str, path: str, query: dict[str, str], body: str | None = None):
        event = http_event(method, path, headers={**bearer(key), "content-type": "text/plain"}, body=body, query=query)
        return handlers["TransferFunction"](event)["body"]

    exported = json.loads(transfer("GET", "/links/export", {"format": "json"}))
    [link] = exported["links"]
    assert (link["domain"], link["short_url"]) == ("go.example", "https://go.example/promo")
    csv_text = transfer("GET", "/links/export", {"format": "csv"})
    assert csv_text.splitlines()[0].endswith(",rules,domain")
    # When both are imported into an account of an empty stack
    table = resources().links_table.value
    for item in two_domains.dynamodb.scan(TableName=table)["Items"]:  # the link and its slug's claim
        two_domains.dynamodb.delete_item(TableName=table, Key={"code": item["code"]})
    # (the JSON first creates it; the CSV then finds it there)
    for body, file_format, outcome in ((json.dumps(exported), "json", "created"), (csv_text, "csv", "skipped")):
        report = json.loads(transfer("POST", "/links/import", {"format": file_format}, body))
        assert [result["status"] for result in report["results"]] == [outcome], report
    # Then the link is go.example's again, once, and the default domain has none of that code
    status, body = manage(handlers, key, "/links/promo", "/links/{code}", {"domain": "go.example"}, code="promo")
    assert (status, json.loads(body)["url"]) == (200, "https://example.com/b")
    assert manage(handlers, key, "/links/promo", "/links/{code}", code="promo")[0] == 404
    # A record naming a domain the stack does not serve fails on its own, naming the field
    wrong = json.dumps({"links": [{"url": "https://example.com/c", "domain": "nope.example"}]})
    [failed] = json.loads(transfer("POST", "/links/import", {"format": "json"}, wrong))["results"]
    assert (failed["status"], failed["error"]) == ("failed", "invalid_request")
    assert "domain" in failed["message"]


def test_webhook_events_show_the_links_domain(two_domains, handlers, api):
    key = two_domains.new_api_key()
    api.create(key, slug="promo", domain="go.example")
    queue = two_domains.queue_urls["WebhookDeliveryQueue"]
    messages = two_domains.sqs.receive_message(QueueUrl=queue, MaxNumberOfMessages=10)["Messages"]
    [message] = [m for m in messages if json.loads(m["Body"])["type"] == "link.created"]  # beside audit.recorded
    view = json.loads(message["Body"])["data"]
    assert (view["code"], view["domain"], view["short_url"]) == ("promo", "go.example", "https://go.example/promo")
