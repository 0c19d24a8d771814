"""The local stack through its load balancer front (LOAD_BALANCER_PORT, the events of
`FRONT=alb make dev`), over real HTTP: the API's create, edit, stats and delete, the console's
sign-in and its link page, the redirect's hit, miss, HEAD and password form, a hostile query, the
target health check and the 1 MB limit. The same flows through the HTTP API: the rest of tests/e2e."""

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import pytest

from tests.e2e.conftest import Running
from tests.e2e.running_stack import Response, RunningStack, http_request

HEALTH_CHECKER = {"User-Agent": "ELB-HealthChecker/2.0"}


@dataclass(frozen=True)
class ThroughLoadBalancer:
    """The session's stack as a load balancer in front of its domain is asked: on the load
    balancer's port, the Host the domain's (the stack's first short domain)."""

    stack: RunningStack
    port: int

    @property
    def api_key(self) -> str:
        return self.stack.api_key

    @property
    def base_url(self) -> str:
        return self.stack.base_url

    def request(self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None) -> Response:
        host = {"Host": f"127.0.0.1:{self.stack.port}"}
        return http_request(self.port, method, path, body, {**host, **(headers or {})})


@pytest.fixture(scope="module")
def balanced(running: Running) -> ThroughLoadBalancer:
    return ThroughLoadBalancer(*running.behind_load_balancer())


@pytest.fixture
def auth(balanced: ThroughLoadBalancer) -> dict[str, str]:
    return {"Authorization": f"Bearer {balanced.api_key}", "Content-Type": "application/json"}


def test_a_link_is_created_followed_edited_its_stats_read_and_deleted(
    balanced: ThroughLoadBalancer, auth: dict[str, str]
) -> None:
    created = balanced.request("POST", "/links", {"url": "https://example.com/lb?x=1"}, auth)
    assert created.status == 201, created.body
    code = created.json()["code"]
    hit = balanced.request("GET", f"/{code}?utm_source=lb")
    assert (hit.status, hit.headers["location"]) == (302, "https://example.com/lb?x=1&utm_source=lb")
    head = balanced.request("HEAD", f"/{code}")
    assert (head.status, head.headers["location"], head.body) == (302, "https://example.com/lb?x=1", b"")
    edited = balanced.request("PATCH", f"/links/{code}", {"url": "https://example.com/edited"}, auth)
    assert (edited.status, edited.json()["url"]) == (200, "https://example.com/edited")
    stats = balanced.request("GET", f"/links/{code}/stats?format=csv", headers=auth)
    assert (stats.status, stats.headers["content-type"]) == (200, "text/csv; charset=utf-8")
    assert balanced.request("DELETE", f"/links/{code}", headers=auth).status == 204
    assert balanced.request("GET", f"/links/{code}", headers=auth).json()["deleted_at"] is not None
    assert balanced.request("GET", "/nosuchcode9").status == 404


def test_a_password_link_shows_its_form_and_unlocks(balanced: ThroughLoadBalancer, auth: dict[str, str]) -> None:
    code = balanced.request("POST", "/links", {"url": "https://example.com/p", "password": "lb-pass-1"}, auth).json()[
        "code"
    ]
    form = balanced.request("GET", f"/{code}")
    assert form.status == 200
    assert b"type=password" in form.body
    posted = {"Content-Type": "application/x-www-form-urlencoded"}
    right = balanced.request("POST", f"/{code}", urlencode({"password": "lb-pass-1"}), posted)
    assert (right.status, right.headers["location"]) == (303, "https://example.com/p")


def test_a_hostile_query_is_answered_never_with_a_5xx(balanced: ThroughLoadBalancer, auth: dict[str, str]) -> None:
    code = balanced.request("POST", "/links", {"url": "https://example.com/q"}, auth).json()["code"]
    for query in ("%FF%FE=%00", "a=b+c&a=%2B", "=&&=", "limit=%D9%A1", "x=" + "%41" * 2000):
        assert balanced.request("GET", f"/{code}?{query}").status == 302, query
        listed = balanced.request("GET", f"/links?{query}", headers=auth)
        assert 200 <= listed.status < 500, (query, listed.body[:200])
    assert balanced.request("GET", "/links?limit=%D9%A1", headers=auth).status == 422  # an Arabic-Indic digit


def test_the_console_signs_in_and_shows_its_pages(balanced: ThroughLoadBalancer) -> None:
    assert balanced.request("GET", "/console/sign-in").status == 200
    origin = {"Origin": balanced.base_url, "Content-Type": "application/x-www-form-urlencoded"}
    signed = balanced.request("POST", "/console/sign-in", urlencode({"api_key": balanced.api_key}), origin)
    assert (signed.status, signed.headers["location"]) == (303, "/console")
    session = re.search(r"console_session=[^;]+", signed.headers["set-cookie"])
    assert session is not None
    page = balanced.request("GET", "/console/links/new", headers={"Cookie": session.group(0)})
    assert page.status == 200
    assert b'name="csrf"' in page.body


def test_target_health_is_answered_and_the_docs_page_keeps_within_1_mb(balanced: ThroughLoadBalancer) -> None:
    health = balanced.request("GET", "/health", headers=HEALTH_CHECKER)
    assert (health.status, health.body) == (200, b"ok")
    assert balanced.request("GET", "/docs").status == 413  # Swagger UI inlined is over 1 MB unzipped
    zipped = balanced.request("GET", "/docs", headers={"Accept-Encoding": "gzip"})
    assert (zipped.status, zipped.headers["content-encoding"]) == (200, "gzip")
