"""The web console's security and its forms, against moto: sessions (cookie flags, forged,
expired, revoked), CSRF, sign-in limits, escaping, the headers of every page, scopes."""

import base64
import gzip
import json
import re
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest

from shortlink import wiring as services
from shortlink.access.api_keys import hash_api_key, issue_api_key, key_id_for
from shortlink.adapters.dynamodb.api_key_store import DynamoApiKeyStore
from shortlink.clicks.events import ClickEvent, ClickPack
from shortlink.console.sessions import issue_session
from shortlink.wiring import console_session_secret, resources
from tests.events import http_event
from tests.integration.ingest_faults import record
from tests.qr_decoding import decoded

pytestmark = pytest.mark.one_account_per_module  # each test starts on it emptied: see conftest
ROOT = Path(__file__).resolve().parents[2]
HOST = "sho.rt"
OWN_ORIGIN = f"https://{HOST}"


class Browser:
    """What a browser does with the console: keeps its cookie, sends Origin with each post."""

    def __init__(self, handlers: dict[str, Any], origin: str = OWN_ORIGIN) -> None:
        self.handlers = handlers
        self.origin = origin
        self.cookie: str | None = None

    def request(
        self, method: str, path: str, form: Mapping[str, str | list[str]] | None = None, **query: str
    ) -> dict[str, Any]:
        headers = {"host": HOST}
        body = None
        if form is not None:
            headers.update({"origin": self.origin, "content-type": "application/x-www-form-urlencoded"})
            body = urlencode(form, doseq=True)  # a list: a field given more than once (checkboxes)
        event = http_event(method, path, headers=headers, body=body, route="/console/{proxy+}", query=query or None)
        if self.cookie is not None:
            event["cookies"] = [f"console_session={self.cookie}"]
        response: dict[str, Any] = self.handlers["ConsoleFunction"](event)
        for cookie in response.get("cookies", []):
            name, _, rest = cookie.partition("=")
            if name == "console_session":
                self.cookie = rest.split(";")[0] or None
        return response

    def get(self, path: str, **query: str) -> dict[str, Any]:
        return self.request("GET", path, None, **query)

    def post(self, path: str, form: Mapping[str, str | list[str]], **query: str) -> dict[str, Any]:
        return self.request("POST", path, form, **query)

    def csrf(self, path: str = "/console") -> str:
        found = re.search(r'name="csrf" value="([0-9a-f]+)"', self.get(path)["body"])
        assert found, "no CSRF token on the page"
        return found.group(1)

    def sign_in(self, key: str) -> dict[str, Any]:
        return self.post("/console/sign-in", {"api_key": key})


@pytest.fixture
def browser(aws, handlers) -> Browser:
    return Browser(handlers)


def signed_in(browser: Browser, key: str) -> Browser:
    answer = browser.sign_in(key)
    assert (answer["statusCode"], answer["headers"]["Location"]) == (303, "/console"), answer.get("body")
    return browser


def scoped_key(*scopes: str, owner: str = "") -> str:
    """A key with these scopes (of `owner`'s account, else its own), as the admin command makes it."""
    store = DynamoApiKeyStore(resources().api_keys_table.value)
    _, plaintext = issue_api_key(store, "scoped", frozenset(scopes), None, datetime.now(UTC), owner)
    return plaintext


def link_count(aws: Any) -> int:
    """Links stored (slug claims share the table, and have no url)."""
    pages = aws.dynamodb.get_paginator("scan").paginate(
        TableName=resources().links_table.value,
        Select="COUNT",
        FilterExpression="attribute_exists(#url)",
        ExpressionAttributeNames={"#url": "url"},
    )
    return sum(int(page["Count"]) for page in pages)


def create(browser: Browser, **fields: str) -> dict[str, Any]:
    return browser.post("/console/links", {"csrf": browser.csrf(), **fields})


def test_signing_in_gives_a_12_hour_cookie_no_script_can_read_that_never_holds_the_key(aws, browser):
    key = aws.new_api_key()
    answer = browser.sign_in(key)
    [cookie] = answer["cookies"]
    attributes = {part.strip().split("=")[0] for part in cookie.split(";")[1:]}
    assert {"HttpOnly", "Secure", "SameSite", "Path", "Max-Age"} <= attributes
    assert "SameSite=Strict" in cookie
    assert "Path=/console" in cookie
    assert "Max-Age=43200" in cookie
    assert key not in cookie
    assert key not in answer["body"]
    page = browser.get("/console")
    assert page["statusCode"] == 200
    assert key not in page["body"]


def test_a_wrong_key_is_refused_and_sign_ins_are_limited_per_address(aws, browser, monkeypatch):
    monkeypatch.setenv("SIGN_IN_ATTEMPTS_PER_WINDOW", "3")
    services.reset()
    key = aws.new_api_key()
    for _ in range(3):
        wrong = browser.sign_in("sl_" + "x" * 32)
        assert wrong["statusCode"] == 401
        assert "not valid" in wrong["body"]
        assert "cookies" not in wrong or not wrong["cookies"]
    # The fourth attempt in the window is refused before the key is even looked up, right or not.
    limited = browser.sign_in(key)
    assert limited["statusCode"] == 429
    assert int(limited["headers"]["Retry-After"]) > 0
    assert browser.cookie is None


def test_correct_key_sign_ins_are_not_counted_against_the_address(aws, handlers, monkeypatch):
    monkeypatch.setenv("SIGN_IN_ATTEMPTS_PER_WINDOW", "3")
    services.reset()
    key = aws.new_api_key()
    # More correct sign-ins from one address than the limit: each one signs in
    for _ in range(5):
        signed_in(Browser(handlers), key)
    # Failures still count: three, then even the right key waits
    assert [Browser(handlers).sign_in("sl_" + "x" * 32)["statusCode"] for _ in range(3)] == [401] * 3
    assert Browser(handlers).sign_in(key)["statusCode"] == 429


def test_a_forged_cookie_leads_to_the_sign_in_page(aws, browser):
    # None, garbage, and a payload of {} with a made-up signature: each one a fresh fixture would be slow.
    for cookie in ("", "not-a-session", "e30.AAAA"):
        browser.cookie = cookie
        answer = browser.get("/console")
        assert (answer["statusCode"], answer["headers"]["Location"]) == (303, "/console/sign-in"), cookie


def test_an_expired_cookie_and_one_of_a_revoked_key_lead_to_the_sign_in_page(aws, browser):
    key = aws.new_api_key()
    signed_in(browser, key)
    from shortlink.access.api_keys import hash_api_key

    _, expired = issue_session(
        hash_api_key(key), datetime.now(UTC) - timedelta(hours=12, seconds=1), console_session_secret()
    )
    live = browser.cookie
    browser.cookie = expired
    assert browser.get("/console")["headers"]["Location"] == "/console/sign-in"
    browser.cookie = live
    assert browser.get("/console")["statusCode"] == 200
    services.api_key_store().revoke(services.api_key_store().find_by_hash(hash_api_key(key)).key_id)  # type: ignore[union-attr]
    assert browser.get("/console")["headers"]["Location"] == "/console/sign-in?why=ended"


def test_a_post_from_another_origin_or_without_the_sessions_token_changes_nothing(aws, handlers, browser):
    key = aws.new_api_key()
    signed_in(browser, key)
    token = browser.csrf()
    links_before = link_count(aws)

    # Another site's form: the browser sends its Origin (and, SameSite=Strict, not even the cookie).
    elsewhere = Browser(handlers, origin="https://evil.example")
    elsewhere.cookie = browser.cookie
    refused = elsewhere.post("/console/links", {"csrf": token, "url": "https://example.com/evil"})
    assert refused["statusCode"] == 403
    assert "did not come from the console" in refused["body"]
    # The own origin without the token, or with a made-up one.
    for form in ({"url": "https://example.com/a"}, {"url": "https://example.com/a", "csrf": "0" * 64}):
        answer = browser.post("/console/links", form)
        assert answer["statusCode"] == 403
        assert "security token" in answer["body"]
    assert link_count(aws) == links_before
    # Signing out is a state change too.
    assert elsewhere.post("/console/sign-out", {"csrf": token})["statusCode"] == 403

    created = create(browser, url="https://example.com/ok")
    assert created["statusCode"] == 303
    assert link_count(aws) == links_before + 1


def test_sign_out_ends_the_session_cookie(aws, browser):
    signed_in(browser, aws.new_api_key())
    answer = browser.post("/console/sign-out", {"csrf": browser.csrf()})
    assert answer["headers"]["Location"] == "/console/sign-in"
    [cookie] = answer["cookies"]
    assert cookie.startswith("console_session=;")
    assert "Max-Age=0" in cookie
    assert browser.get("/console")["headers"]["Location"] == "/console/sign-in"


SCRIPT = "<script>alert(1)</script>"


def test_script_in_titles_urls_slugs_and_tags_is_shown_escaped(aws, browser):
    signed_in(browser, aws.new_api_key())
    created = create(browser, url=f"https://example.com/?q={SCRIPT}", title=f'"{SCRIPT}', tags="safe")
    assert created["statusCode"] == 303
    code = created["headers"]["Location"].split("/")[3].split("?")[0]
    for path in ("/console", f"/console/links/{code}", f"/console/links/{code}/edit"):
        body = browser.get(path)["body"]
        assert "<script>alert" not in body, path
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in body, path
    # A slug and tags with markup are refused, and the values typed are shown back escaped.
    refused = create(browser, url="https://example.com", slug=SCRIPT, tags=f"ok {SCRIPT}")
    assert refused["statusCode"] == 422
    assert "<script>alert" not in refused["body"]
    assert 'id="tags-error"' in refused["body"]


def test_the_apis_422_messages_appear_at_the_field_they_name(aws, browser):
    signed_in(browser, aws.new_api_key())
    answer = create(browser, url="https://example.com", expires_at="2020-01-01T00:00:00Z", title="t" * 201)
    assert answer["statusCode"] == 422
    assert re.search(r'id="title-error">title: String should have at most 200 characters<', answer["body"])
    answer = create(browser, url="https://example.com", expires_at="2020-01-01T00:00:00Z")
    assert re.search(r'id="expires_at-error">expires_at must be in the future<', answer["body"])
    answer = create(browser, url="https://example.com", allow_countries="DE QQ")
    assert re.search(r'id="allow_countries-error">rules.allow.countries\[1\]: [^<]*QQ', answer["body"])
    assert link_count(aws) == 0


def test_a_link_created_with_every_option_is_listed_shown_edited_deleted_and_restored(aws, browser):
    signed_in(browser, aws.new_api_key())
    created = create(
        browser,
        url="https://example.com/spring",
        slug="spring",
        tags="spring sale",
        expires_at="2030-01-01T00:00:00Z",
        password="open-sesame",
        allow_countries="DE",
        variant_0_url="https://a.example",
        variant_0_weight="70",
        variant_1_url="https://b.example",
        variant_1_weight="30",
    )
    assert created["headers"]["Location"] == "/console/links/spring?created=1"
    page = browser.get("/console/links/spring")["body"]
    assert "https://example.com/spring" in page
    assert '"weight": 70' in page
    assert 'id="password">yes<' in page
    assert 'src="/console/links/spring/qr.svg"' in page
    assert '<h3 id="top-campaign">Campaigns</h3>' in page  # a breakdown per dimension, campaigns too
    assert all(f'id="breakdown-{name}"' in page or f'id="bars-{name}"' in page for name in ("country", "device"))
    assert '<h3 id="top-answered">Answered at</h3>' in page  # and where its clicks were answered
    assert "spring" in browser.get("/console", tag="sale")["body"]
    assert 'data-code="spring"' not in browser.get("/console", tag="other")["body"]
    assert 'data-code="spring"' in browser.get("/console", q="spring")["body"]

    form = {"csrf": browser.csrf(), "url": "https://example.com/summer", "tags": "spring sale"}
    assert browser.post("/console/links/spring", form)["statusCode"] == 303
    assert "https://example.com/summer" in browser.get("/console/links/spring")["body"]

    asked = browser.post("/console/links/spring/delete", {"csrf": browser.csrf()})
    assert (asked["statusCode"], "/spring? It stops redirecting" in asked["body"]) == (200, True)  # Delete asks first
    assert (
        browser.post("/console/links/spring/delete", {"csrf": browser.csrf(), "confirmed": "yes"})["statusCode"] == 303
    )
    listing = browser.get("/console")["body"]
    assert 'id="deleted"' in listing
    assert 'aria-label="Restore' in listing
    assert browser.post("/console/links/spring/restore", {"csrf": browser.csrf()})["statusCode"] == 303
    assert 'id="deleted"' not in browser.get("/console")["body"]

    svg = browser.get("/console/links/spring/qr.svg")
    assert svg["statusCode"] == 200
    assert svg["headers"]["Content-Type"] == "image/svg+xml"
    short_url = f"https://{HOST}/spring"
    assert decoded(svg["body"].encode(), "image/svg+xml") == [short_url]
    # A style saved on the page draws the code; one a reader could not scan is refused naming the rule
    style = {"csrf": browser.csrf(), "dark": "#1b5e20", "light": "#fffde7", "margin": "2", "save": "link"}
    assert browser.post("/console/links/spring/qr-style", style)["statusCode"] == 303
    assert 'id="qr-source">Style: this link' in browser.get("/console/links/spring")["body"]
    png = browser.get("/console/links/spring/qr.png")
    assert decoded(base64.b64decode(png["body"]), "image/png") == [short_url]
    faint = browser.post("/console/links/spring/qr-style", {**style, "light": "#4caf50"})
    assert faint["statusCode"] == 422
    assert "under the 4.5:1 a reader needs" in faint["body"]
    assert "#fffde7" in browser.get("/console/links/spring/qr.svg")["body"]  # nothing half-saved
    csv = browser.get("/console/links/spring/stats.csv", range="7d")
    assert csv["body"].startswith("start,clicks,bots,unique_visitors")
    # 90 days of hours is more than a series holds: the page says so at the range.
    too_long = browser.get("/console/links/spring", range="90d", granularity="hour")
    assert too_long["statusCode"] == 422
    assert re.search(r'id="range-error">an hourly series covers at most 31 days', too_long["body"])


def test_bulk_create_makes_a_link_per_line_and_says_which_failed(aws, browser):
    signed_in(browser, aws.new_api_key())
    lines = "https://example.com/one First\nnot a url\nhttps://example.com/two\n"
    answer = browser.post("/console/links/bulk", {"csrf": browser.csrf(), "lines": lines, "tags": "bulk"})
    assert answer["statusCode"] == 200
    assert "2 of 3 created." in answer["body"]
    assert "Line 2 (not a url)" in answer["body"]
    assert link_count(aws) == 2


def test_every_page_carries_a_strict_csp_is_never_framed_and_has_no_inline_script_or_style(aws, browser):
    pages = ["/console/sign-in", "/console/no-such-page"]
    signed_in(browser, aws.new_api_key())
    create(browser, url="https://example.com", slug="framed")
    pages += ["/console", "/console/links/new", "/console/links/framed", "/console/links/framed/edit"]
    pages += ["/console/overview", "/console/links/unknown", "/console/keys"]
    for path in pages:
        answer = browser.get(path)
        policy = answer["headers"]["Content-Security-Policy"]
        assert "default-src 'self'" in policy, path
        assert "frame-ancestors 'none'" in policy, path
        assert "unsafe-inline" not in policy, path
        assert answer["headers"]["X-Frame-Options"] == "DENY", path
        # Nothing the policy would have to allow: no inline script, style or event handler.
        assert not re.search(r"<script(?![^>]*\bsrc=)", answer["body"]), path
        assert not re.search(r"<style|\sstyle=|\son[a-z]+=", answer["body"]), path


def test_a_key_without_links_write_sees_its_links_but_no_create_and_its_posts_are_refused(aws, handlers, browser):
    # Given a link of an account and a read-only key of that account (as the admin command makes it)
    owner = aws.new_api_key()
    signed_in(browser, owner)
    create(browser, url="https://example.com/before", slug="before")
    viewer = scoped_key("links:read", "stats:read", owner=key_id_for(hash_api_key(owner)))
    reader = signed_in(Browser(handlers), viewer)
    listing = reader.get("/console")
    assert listing["statusCode"] == 200
    assert 'data-code="before"' in listing["body"]
    assert 'id="create-link"' not in listing["body"]
    assert 'id="new-link"' not in listing["body"]
    assert 'id="edit"' not in reader.get("/console/links/before")["body"]
    refused = create(reader, url="https://example.com/after")
    assert refused["statusCode"] == 403
    assert "links:write" in refused["body"]
    assert reader.get("/console/links/new")["statusCode"] == 403
    assert link_count(aws) == 1


def test_the_chart_is_the_pinned_uplot_and_a_page_loads_under_150_kb_compressed():
    # Given the uPlot version package.json pins and the files a link page loads
    pinned = json.loads((ROOT / "package.json").read_text())["devDependencies"]["uplot"]
    static = ROOT / "functions/console/static"
    assert (
        (static / "uPlot.iife.min.js").read_text().startswith(f"/*! https://github.com/leeoniya/uPlot (v{pinned}) */")
    )
    vendored = ROOT / "node_modules/uplot/dist/uPlot.iife.min.js"
    if vendored.exists():
        assert vendored.read_bytes() == (static / "uPlot.iife.min.js").read_bytes()
    compressed = sum(len(gzip.compress(path.read_bytes())) for path in static.iterdir())
    assert compressed < 150 * 1024, compressed


def test_on_several_domains_a_link_is_created_listed_shown_edited_and_deleted_on_its_own(aws, browser, monkeypatch):
    monkeypatch.setenv("SHORT_DOMAINS", "sho.rt,go.example")
    services.reset()
    signed_in(browser, aws.new_api_key())
    new = browser.get("/console/links/new")["body"]
    assert re.findall(r'<option value="([^"]+)"', new)[:2] == ["sho.rt", "go.example"]  # the default first
    # The same slug on both domains, each page named by ?domain= as the API's routes are
    assert create(browser, url="https://example.com/a", slug="sale")["headers"]["Location"] == (
        "/console/links/sale?domain=sho.rt&created=1"
    )
    made = create(browser, url="https://example.com/b", slug="sale", domain="go.example")
    assert made["headers"]["Location"] == "/console/links/sale?domain=go.example&created=1"
    listing = browser.get("/console")["body"]
    assert 'href="/console/links/sale?domain=go.example" class="code">https://go.example/sale<' in listing
    assert 'href="/console/links/sale?domain=sho.rt" class="code">https://sho.rt/sale<' in listing
    only_go = browser.get("/console", domain="go.example")["body"]
    assert "https://go.example/sale" in only_go
    assert "https://sho.rt/sale" not in only_go
    page = browser.get("/console/links/sale", domain="go.example")["body"]
    assert 'id="destination">https://example.com/b<' in page
    assert 'href="/console/links/sale/edit?domain=go.example"' in page
    assert 'href="/console/links/sale/qr.png?domain=go.example&amp;download=1"' in page
    assert '<input type="hidden" name="domain" value="go.example">' in page  # the range form keeps it
    go_qr = browser.get("/console/links/sale/qr.svg", domain="go.example")["body"]
    assert go_qr != browser.get("/console/links/sale/qr.svg")["body"]  # each encodes its own short URL
    edit_form = browser.get("/console/links/sale/edit", domain="go.example")["body"]
    assert 'action="/console/links/sale?domain=go.example"' in edit_form
    edited = browser.post(
        "/console/links/sale", {"csrf": browser.csrf(), "url": "https://example.com/c"}, domain="go.example"
    )
    assert edited["headers"]["Location"] == "/console/links/sale?domain=go.example"
    assert 'id="destination">https://example.com/a<' in browser.get("/console/links/sale")["body"]
    assert (
        browser.post("/console/links/sale/delete", {"csrf": browser.csrf(), "confirmed": "yes"}, domain="go.example")[
            "statusCode"
        ]
        == 303
    )
    assert 'id="deleted-notice"' in browser.get("/console/links/sale", domain="go.example")["body"]
    assert 'id="deleted-notice"' not in browser.get("/console/links/sale")["body"]
    # A domain the stack does not serve: refused, naming it
    elsewhere = browser.get("/console/links/sale", domain="nowhere.example")
    assert elsewhere["statusCode"] == 400
    assert "domain must be one of this stack&#39;s domains (sho.rt, go.example)" in elsewhere["body"]
    refused = create(browser, url="https://example.com/d", domain="nowhere.example")
    assert refused["statusCode"] == 422
    assert re.search(r'id="domain-error">domain must be one of', refused["body"])
    assert link_count(aws) == 2


def ingest_clicks(handlers: dict[str, Any], owner: str, clicks: list[tuple[str, datetime, str]]) -> None:
    """Count clicks (code, when, agent) as ingest counts a pack the redirect queued."""
    made = tuple(ClickEvent(f"c{n}", code, at, agent=agent, owner=owner) for n, (code, at, agent) in enumerate(clicks))
    result = handlers["IngestFunction"]({"Records": [record("m-glance", ClickPack("p-glance", made).to_json())]})
    assert result == {"batchItemFailures": []}


def glances(page: str) -> dict[str, list[int]]:
    """Each listed link's sparkline values, by code, in the order listed."""
    rows = re.findall(r'<tr data-code="([^"]+)">.*?data-values="([0-9,]*)"', page, re.DOTALL)
    return {code: [int(value) for value in values.split(",")] for code, values in rows}


def test_the_list_draws_each_links_7_days_of_peoples_clicks_from_its_counters_and_sorts_by_them(aws, handlers, browser):
    key = aws.new_api_key()
    owner = key_id_for(hash_api_key(key))
    signed_in(browser, key)
    for slug in ("quiet", "busy", "early"):
        assert create(browser, url=f"https://example.com/{slug}", slug=slug, tags="glance")["statusCode"] == 303
    # Given people's and bots' clicks today, 3 and 6 days ago, and 8 days ago (outside the 7 days)
    today = datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
    ago = {days: today - timedelta(days=days) for days in (0, 3, 6, 8)}
    clicks = [("busy", ago[0], "person")] * 3 + [("busy", ago[0], "crawler")] * 2 + [("busy", ago[3], "person")] * 4
    clicks += [("early", ago[6], "person"), *[("early", ago[8], "person")] * 5]
    ingest_clicks(handlers, owner, clicks)
    # When the list is shown, newest first, Then each line is its people's clicks per day, oldest first
    listed = glances(browser.get("/console", tag="glance")["body"])
    assert listed == {"early": [1, 0, 0, 0, 0, 0, 0], "busy": [0, 0, 0, 4, 0, 0, 3], "quiet": [0] * 7}
    # and they are what the link's stats count per day
    start = (today - timedelta(days=6)).replace(hour=0).strftime("%Y-%m-%dT%H:%M:%SZ")
    stats = http_event(
        "GET", "/links/busy/stats", route="/links/{code}/stats", path_parameters={"code": "busy"},
        headers={"authorization": f"Bearer {key}"}, query={"from": start, "granularity": "day"},
    )  # fmt: skip
    series = json.loads(handlers["ManageFunction"](stats)["body"])["series"]
    assert [point["people"] for point in series] == listed["busy"]
    # When sorted by them, the busiest comes first; the sort's link keeps the filters
    page = browser.get("/console", tag="glance", sort="clicks")["body"]
    assert list(glances(page)) == ["busy", "early", "quiet"]
    assert 'aria-label="People\'s clicks: 7 in 7 days; per day, oldest first: 0, 0, 0, 4, 0, 0, 3"' in page
    assert 'href="/console?tag=glance&amp;sort=newest" id="sort-clicks"' in page


def test_every_filter_of_the_list_is_in_its_url_and_round_trips(aws, browser):
    signed_in(browser, aws.new_api_key())
    # A shared URL shows its filters in the form and carries them to the next page and the sort
    page = browser.get("/console", q="spring", tag="sale", utm_campaign="launch", sort="clicks")
    assert page["statusCode"] == 200
    body = page["body"]
    assert 'id="q" name="q" type="search" value="spring"' in body
    assert 'id="tag" name="tag" value="sale"' in body
    assert 'id="utm_campaign" name="utm_campaign" value="launch"' in body
    assert '<option value="clicks" selected>' in body
    # A filter the list cannot apply is refused naming it, never a 500
    for bad in ({"sort": "oldest"}, {"tag": "no spaces"}, {"utm_campaign": "x" * 300}):
        refused = browser.get("/console", **bad)
        assert refused["statusCode"] == 400, bad
        assert next(iter(bad)).replace("utm_", "") in refused["body"], bad
