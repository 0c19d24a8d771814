"""Two short domains on the local stack over real HTTP (127.0.0.1, the default, and go.localhost):
each host follows only its own links, lists and short URLs name the link's domain, and
go.localhost's fallback pages and app-link files are served (tools/developers/devstack)."""

import json
import uuid

import pytest

OTHER = {"Host": "go.localhost"}


def test_links_live_on_their_domain(stack, auth):
    # Given a link created on go.localhost
    created = stack.request("POST", "/links", {"url": "https://example.com/go", "domain": "go.localhost"}, auth)
    assert created.status == 201, created.body
    link = created.json()
    assert link["domain"] == "go.localhost"
    assert link["short_url"] == f"http://go.localhost:{stack.port}/{link['code']}"
    # Then go.localhost follows it, the default domain and an unknown host do not
    assert stack.request("GET", f"/{link['code']}", headers=OTHER).headers["location"] == "https://example.com/go"
    assert stack.request("GET", f"/{link['code']}").status == 404
    assert stack.request("GET", f"/{link['code']}", headers={"Host": "unknown.example"}).status == 404
    # And the domain's list holds it, the default domain's does not
    listed = stack.request("GET", "/links?domain=go.localhost&limit=100", headers=auth).json()["links"]
    assert link["code"] in {item["code"] for item in listed}
    assert {item["domain"] for item in listed} == {"go.localhost"}
    default = stack.request("GET", "/links?domain=127.0.0.1&limit=100", headers=auth).json()["links"]
    assert link["code"] not in {item["code"] for item in default}


@pytest.mark.dynamodb_features("TransactWriteItems")  # a custom slug is written in a transaction
def test_the_same_slug_on_both_domains(stack, auth):
    slug = f"both-{uuid.uuid4().hex[:8]}"
    for domain, url in (("127.0.0.1", "https://example.com/one"), ("go.localhost", "https://example.com/two")):
        created = stack.request("POST", "/links", {"url": url, "slug": slug, "domain": domain}, auth)
        assert created.status == 201, created.body
    assert stack.request("GET", f"/{slug}").headers["location"] == "https://example.com/one"
    assert stack.request("GET", f"/{slug}", headers=OTHER).headers["location"] == "https://example.com/two"


def test_fallback_pages_and_app_links(stack):
    root = stack.request("GET", "/", headers=OTHER)
    assert (root.status, root.headers["location"]) == (302, "https://example.com/")
    missing = stack.request("GET", "/no-such-link", headers=OTHER)
    assert (missing.status, missing.headers["location"]) == (302, "https://example.com/not-found")
    assert stack.request("GET", "/no-such-link").status == 404  # the default domain has no fallbacks
    for name in ("apple-app-site-association", "assetlinks.json"):
        served = stack.request("GET", f"/.well-known/{name}", headers=OTHER)
        assert (served.status, served.headers["content-type"]) == (200, "application/json")
        json.loads(served.body)
        assert stack.request("GET", f"/.well-known/{name}").status == 404
