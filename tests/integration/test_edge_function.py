"""edge/viewer-request.js under Node (tools/developers/devstack/edge_host.mjs), fed entries made by
shortlink.edge.entries and events made as the local edge makes them: whatever it answers is the
origin's answer (shortlink.redirect.responses, shortlink.links.destinations), and a follow it
can reproduce exactly is answered, not passed on."""

import tempfile
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from ada_url import URL
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shortlink.domains.model import ShortDomains
from shortlink.errors import DestinationTooLong
from shortlink.links.destinations import Utm, destination
from shortlink.links.model import Link
from shortlink.links.previews import LinkPreview
from shortlink.redirect.responses import redirect_response
from shortlink.rules.user_agents import LINK_PREVIEW_PATTERN, is_link_preview
from tests.edge_store import publish
from tools.developers.devstack.edge_function import EdgeFunction, viewer_request_event
from tools.developers.devstack.edge_log_fields import FUNCTION_GENERATED, log_fields

DOMAINS = ShortDomains.parse("s.example,go.example")
NOW = datetime.now(UTC)
LINK = Link("abc", "https://example.com/a?x=1#top", "owner", NOW)


class Store:
    """The published store file, written as the local stack writes it (temporary file, rename)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def publish(self, *links: Link) -> None:
        publish(self.path, links, DOMAINS)


@pytest.fixture(scope="module")
def edge() -> Iterator[tuple[EdgeFunction, Store]]:
    with tempfile.TemporaryDirectory() as directory:
        store = Store(Path(directory) / "store.json")
        store.publish()
        function = EdgeFunction(store.path)
        try:
            yield function, store
        finally:
            function.close()


def event(code: str, query: str = "", method: str = "GET", host: str = "s.example", **headers: str) -> dict[str, Any]:
    environ = {
        "REQUEST_METHOD": method,
        "RAW_URI": f"/{code}?{query}" if query else f"/{code}",
        "QUERY_STRING": query,
        "REMOTE_ADDR": "198.51.100.7",
        "HTTP_HOST": host,
        **{f"HTTP_{name.upper()}": value for name, value in headers.items()},
    }
    return viewer_request_event(environ, "request-id")


def origin_answer(link: Link, query: str) -> dict[str, Any] | None:
    """What the origin answers a GET of an active `link` with `query` (follows.apply_rules);
    None when it refuses it (a destination too long)."""
    forwarded = query if link.forward_query else ""
    try:
        url = destination(link.url, link.utm, forwarded) if forwarded or link.utm else link.url
    except DestinationTooLong:
        return None
    answer = redirect_response(link, link.redirect_type, url)
    return {
        "status": answer["statusCode"],
        "headers": {name.lower(): value for name, value in answer["headers"].items()},
    }


def edge_answer(result: dict[str, Any]) -> dict[str, Any] | None:
    if "statusCode" not in result:
        return None
    return {
        "status": result["statusCode"],
        "headers": {name: field["value"] for name, field in result["headers"].items()},
    }


def test_a_python_made_entry_is_answered_with_the_origins_redirect(edge):
    function, store = edge
    link = replace(LINK, utm=Utm(source="news", campaign="spring sale"), redirect_type=308, crawlable=True)
    store.publish(link)
    assert edge_answer(function.run(event("abc", "ref=mail"))) == origin_answer(link, "ref=mail")
    assert edge_answer(function.run(event("abc", method="HEAD"))) == origin_answer(link, "")


def test_several_domains_through_python_made_keys(edge):
    function, store = edge
    default, other = replace(LINK, url="https://example.com/default"), replace(LINK, domain="go.example")
    store.publish(default, other)
    assert function.run(event("abc", host="go.example"))["headers"]["location"]["value"] == other.url
    assert function.run(event("abc", host="s.example:443"))["headers"]["location"]["value"] == default.url
    assert function.run(event("abc", host="GO.example."))["headers"]["location"]["value"] == other.url  # a final dot
    assert "statusCode" not in function.run(event("abc", host="other.example"))


def test_ineligible_links_are_never_answered(edge):
    function, store = edge
    store.publish(replace(LINK, max_clicks=3), replace(LINK, code="pw", password_hash="x"))
    for code in ("abc", "pw"):
        passed = function.run(event(code))
        assert "statusCode" not in passed
        assert passed["headers"]["x-shortlink-host"] == {"value": "s.example"}


def test_every_link_preview_bot_of_the_origin_is_passed_on_for_a_link_with_a_card(edge):
    # Given a link with a card, and a User-Agent for each of the origin's previewer patterns
    function, store = edge
    store.publish(replace(LINK, preview=LinkPreview(title="A card")))
    tokens = LINK_PREVIEW_PATTERN.pattern.split("|")
    assert len(tokens) > 10
    for token in tokens:
        for agent in (f"Mozilla/5.0 ({token}/1.0)", token.upper()):
            assert is_link_preview(agent)
            # Then the function leaves each of them to the origin, which shows the card
            assert "statusCode" not in function.run(event("abc", USER_AGENT=agent)), agent
    browser = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36"
    assert function.run(event("abc", USER_AGENT=browser))["statusCode"] == 302


def test_the_log_record_of_an_edge_answer_names_it(edge):
    function, store = edge
    store.publish(LINK)
    follow = event("abc", "utm_source=x", **{"USER_AGENT": "Mozilla/5.0 (X11)", "CLOUDFRONT_VIEWER_COUNTRY": "DE"})
    answer = function.run(follow)
    fields = log_fields(follow, answer["statusCode"], FUNCTION_GENERATED, 1733456789.1234)
    assert fields["timestamp"] == "1733456789.123"
    assert (fields["cs-method"], fields["cs-uri-stem"], fields["cs-uri-query"]) == ("GET", "/abc", "utm_source=x")
    assert (fields["x-edge-result-type"], fields["sc-status"], fields["c-country"]) == (FUNCTION_GENERATED, "302", "DE")
    assert fields["cs-user-agent"] == "Mozilla/5.0%20(X11)"
    assert fields["cs-referer"] == "-"


texts = st.characters(codec="utf-8", exclude_categories=["Cs"])
verbatim = st.from_regex(r"[A-Za-z0-9*._-]{0,12}", fullmatch=True)
verbatim_names = verbatim.filter(lambda name: not name.isdigit())
hostile = st.text(st.sampled_from("a=&+%#?;é\x00 /\\<>\"'zZ09ff%2F%25%ff"), max_size=40)
links = st.builds(
    lambda url, utm, status, forward, crawlable, expires: replace(
        LINK,
        url=URL(url).href,
        utm=utm,
        redirect_type=status,
        forward_query=forward,
        crawlable=crawlable,
        expires_at=None if expires is None else datetime.now(UTC) + timedelta(minutes=10, seconds=expires),
    ),
    st.sampled_from(
        [
            "https://example.com/a",
            "https://example.com/a?x=1&utm_term=t#f",
            "https://example.com/?",
            "http://e.example/p?a+b=%20",
        ]
    ),
    st.one_of(
        st.none(),
        st.builds(
            Utm,
            st.one_of(st.none(), st.text(texts, min_size=1, max_size=8)),
            st.none(),
            st.one_of(st.none(), st.just("c d")),
        ),
    ),
    st.sampled_from([301, 302, 307, 308]),
    st.booleans(),
    st.booleans(),
    st.one_of(st.none(), st.integers(0, 3600)),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(link=links, query=hostile)
def test_whatever_the_edge_answers_is_the_origins_answer(edge, link, query):
    function, store = edge
    store.publish(link)
    answer = edge_answer(function.run(event("abc", query)))
    if answer is not None:
        expected = origin_answer(link, query)
        assert answer == expected or _same_but_a_second(answer, expected)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(link=links, pairs=st.lists(st.tuples(verbatim_names, verbatim), max_size=5, unique_by=lambda pair: pair[0]))
def test_a_query_of_plain_parameters_is_answered_at_the_edge(edge, link, pairs):
    function, store = edge
    store.publish(link)
    query = "&".join(f"{name}={value}" for name, value in pairs)
    answer = edge_answer(function.run(event("abc", query)))
    assert answer is not None
    expected = origin_answer(link, query)
    assert answer == expected or _same_but_a_second(answer, expected)


def _same_but_a_second(answer: dict[str, Any], expected: dict[str, Any] | None) -> bool:
    """A 301/308's max-age counts down to the expiry: the edge ran a moment after the origin's model."""
    if expected is None or answer["headers"].keys() != expected["headers"].keys():
        return False
    caching, wanted = answer["headers"]["cache-control"], expected["headers"]["cache-control"]
    other = {name: value for name, value in answer["headers"].items() if name != "cache-control"}
    same = other == {name: value for name, value in expected["headers"].items() if name != "cache-control"}
    seconds = [int(value.rsplit("=", 1)[1]) for value in (caching, wanted) if "max-age=" in value]
    return same and answer["status"] == expected["status"] and len(seconds) == 2 and abs(seconds[0] - seconds[1]) <= 1
