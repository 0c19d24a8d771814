"""Passwords, access rules and routes over real HTTP through the local stack (which stands in
for the edge: it believes CloudFront-Viewer-Country)."""

import time
from datetime import UTC, datetime, timedelta
from urllib.parse import urlencode

FORM = {"Content-Type": "application/x-www-form-urlencoded"}
IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148 Safari/604.1"


def test_a_password_link_unlocks_with_its_password_only(stack, auth):
    created = stack.request("POST", "/links", {"url": "https://example.com/secret", "password": "pass-e2e-1"}, auth)
    assert created.status == 201, created.body
    code = created.json()["code"]
    form = stack.request("GET", f"/{code}")
    assert form.status == 200
    assert b"type=password" in form.body
    wrong = stack.request("POST", f"/{code}", urlencode({"password": "nope-nope"}), FORM)
    assert wrong.status == 403
    assert b"Wrong password" in wrong.body
    right = stack.request("POST", f"/{code}", urlencode({"password": "pass-e2e-1"}), FORM)
    assert right.status == 303
    assert right.headers["location"] == "https://example.com/secret"


def test_access_rules_and_routes_by_visitor(stack, auth, api):
    rules = {
        "deny": {"devices": ["bot"]},
        "allow": {"countries": ["DE", "FR", "XX"]},
        "routes": [
            {"countries": ["FR"], "url": "https://example.fr/"},
            {"os": ["ios"], "url": "https://apps.apple.com/app/id1"},
            {"languages": ["de"], "url": "https://example.com/de"},
        ],
    }
    code = api.new_link(url="https://example.com/", rules=rules)["code"]
    browser = {"User-Agent": "Mozilla/5.0 (Windows NT 10.0; Win64; x64) Firefox/126.0"}

    def visit(**headers):
        return api.follow(code, headers={**browser, **headers}).headers["location"]

    assert visit(**{"CloudFront-Viewer-Country": "FR"}) == "https://example.fr/"
    assert visit(**{"User-Agent": IPHONE}) == "https://apps.apple.com/app/id1"
    assert visit(**{"Accept-Language": "en;q=0.3, de-DE"}) == "https://example.com/de"
    assert visit() == "https://example.com/"  # no country header: XX, allowed here
    assert api.follow(code, headers={**browser, "CloudFront-Viewer-Country": "US"}).status == 403
    assert api.follow(code, headers={**browser, "User-Agent": "curl/8.5.0"}).status == 403

    invalid = stack.request("PATCH", f"/links/{code}", {"rules": {"allow": {"ips": ["10.0.0.1/8"]}}}, auth)
    assert invalid.status == 422
    assert invalid.json()["message"].startswith("rules.allow.ips[0]")


def test_rules_and_passwords_are_edited_and_removed(stack, auth):
    created = stack.request("POST", "/links", {"url": f"https://example.com/{time.time_ns()}"}, auth)
    code = created.json()["code"]
    edited = stack.request("PATCH", f"/links/{code}", {"password": "edited-pass", "max_clicks": 3}, auth)
    assert edited.status == 200, edited.body
    assert (edited.json()["has_password"], edited.json()["max_clicks"]) == (True, 3)
    # The redirect's cache may hold the old link for up to its TTL; the stored link is already locked.
    assert stack.request("GET", f"/links/{code}", headers=auth).json()["has_password"] is True
    cleared = stack.request("PATCH", f"/links/{code}", {"password": None, "max_clicks": None}, auth)
    assert (cleared.json()["has_password"], cleared.json()["max_clicks"]) == (False, None)


def test_ip_browser_time_and_split_rules(stack, auth):
    now = datetime.now(UTC)
    window = {"from": f"{(now - timedelta(hours=1)):%H:%M}", "to": f"{(now + timedelta(hours=1)):%H:%M}"}
    rules = {
        "deny": {"browsers": ["opera"]},
        "routes": [
            {"time": window, "devices": ["tablet"], "url": "https://example.com/tablets-now"},
            {"split": [{"url": "https://a.example/", "weight": 50}, {"url": "https://b.example/", "weight": 50}]},
        ],
    }
    created = stack.request("POST", "/links", {"url": "https://example.com/", "rules": rules}, auth)
    assert created.status == 201, created.body
    code = created.json()["code"]
    ipad = "Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 Version/17.5 Safari/604.1"
    assert stack.request("GET", f"/{code}", headers={"User-Agent": ipad}).headers["location"] == (
        "https://example.com/tablets-now"
    )
    firefox = {"User-Agent": "Mozilla/5.0 (X11; Linux x86_64; rv:126.0) Gecko/20100101 Firefox/126.0"}
    variants = {stack.request("GET", f"/{code}", headers=firefox).headers["location"] for _ in range(5)}
    assert len(variants) == 1  # the same visitor stays on one variant
    assert variants <= {"https://a.example/", "https://b.example/"}
    opera = {"User-Agent": firefox["User-Agent"] + " OPR/110.0", "Sec-CH-UA": '"Opera";v="110", "Chromium";v="124"'}
    assert stack.request("GET", f"/{code}", headers=opera).status == 403

    # The local stack's visitors come from 127.0.0.1: an IP deny list that names it shuts them out.
    blocked = stack.request(
        "POST", "/links", {"url": "https://example.com/", "rules": {"deny": {"ips": ["127.0.0.0/8"]}}}, auth
    )
    assert stack.request("GET", f"/{blocked.json()['code']}", headers=firefox).status == 403
