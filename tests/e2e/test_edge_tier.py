"""The edge tier in the local edge (EDGE_TIER=1) over real HTTP: edge/viewer-request.js runs
under Node before the API, reading a store file written here from the links this test created
(shortlink.edge.entries; the sync is another part's). A follow the edge answers makes no Lambda
invocation, an ineligible link always reaches the origin, and the parity test asks the same
links and queries of the origin (store empty) and of the edge (store published) and compares
the status and every header."""

import re
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import boto3
import pytest

from shortlink.adapters.dynamodb.link_items import link_from_item
from shortlink.domains.model import ShortDomains
from shortlink.links.model import Link
from tests.e2e.running_stack import Response, RunningStack
from tests.edge_store import publish

OTHER = {"Host": "go.localhost"}
# Added by the HTTP server to any answer, not by the redirect or the function (CloudFront adds
# its own Date, Server, Via, X-Cache and X-Amz-Cf-* to both alike).
TRANSPORT = frozenset({"date", "server", "content-length", "connection", "transfer-encoding"})
LAMBDA_FOLLOW = re.compile(r"devstack\.http (GET|HEAD) /\{code\} ->")


class EdgeStack:
    def __init__(self, stack: RunningStack, store_file: Path) -> None:
        self.stack = stack
        self.store_file = store_file
        self.auth = {"Authorization": f"Bearer {stack.api_key}", "Content-Type": "application/json"}
        self.dynamodb: Any = boto3.client(
            "dynamodb",
            endpoint_url=f"http://127.0.0.1:{stack.moto_port}",
            region_name="us-east-1",
            aws_access_key_id="local",
            aws_secret_access_key="local",
        )

    def create(self, **options: Any) -> dict[str, Any]:
        created = self.stack.request("POST", "/links", options, self.auth)
        assert created.status == 201, created.body
        link: dict[str, Any] = created.json()
        return link

    def publish(self, *links: dict[str, Any]) -> None:
        """The store as the sync would publish it: each link read from the table and encoded."""
        domains = ShortDomains.parse(f"127.0.0.1:{self.stack.port},go.localhost:{self.stack.port}")
        publish(self.store_file, [self.stored(created) for created in links], domains)

    def stored(self, created: dict[str, Any]) -> Link:
        key = created["code"] if created["domain"] == "127.0.0.1" else f"{created['domain']}/{created['code']}"
        item = self.dynamodb.get_item(TableName="LinksTable", Key={"code": {"S": key}}, ConsistentRead=True)
        return link_from_item(item["Item"])

    def lambda_follows(self) -> int:
        """Follows the redirect function was invoked for, from the stack's request log."""
        return len(LAMBDA_FOLLOW.findall(self.stack.output()))

    def follow(self, method: str, path: str, headers: dict[str, str] | None = None) -> Response:
        answer = self.stack.request(method, path, headers=headers)
        time.sleep(0.05)  # the request log line is written once the response is out
        return answer


@pytest.fixture(scope="module")
def edge(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EdgeStack]:
    store_file = tmp_path_factory.mktemp("edge") / "store.json"
    # EDGE_SYNC=0: the store file is this test's to write (the sync's: tests/e2e/test_edge_sync.py)
    stack = RunningStack.start(EDGE_TIER="1", EDGE_SYNC="0", EDGE_STORE_FILE=str(store_file))
    try:
        assert stack.ready, stack.output()
        yield EdgeStack(stack, store_file)
    finally:
        stack.stop()


def answer_of(response: Response) -> tuple[int, dict[str, str], bytes, float]:
    """Status, headers, body, and when it was answered (a max-age counts down to an expiry)."""
    headers = {name: value for name, value in response.headers.items() if name not in TRANSPORT}
    return response.status, headers, response.body, time.time()


def test_the_same_links_answer_the_same_through_the_edge_and_the_origin(edge):
    soon = datetime.now(UTC) + timedelta(minutes=30)
    links = [
        edge.create(url="https://example.com/plain"),
        edge.create(url="https://example.com/moved?x=1", redirect_type=301),
        edge.create(url="https://example.com/temp#frag", redirect_type=307, crawlable=True),
        edge.create(url="https://example.com/perm", redirect_type=308, expires_at=soon.isoformat()),
        edge.create(url="https://example.com/c?utm_term=t", utm={"source": "news", "campaign": "spring sale"}),
        edge.create(url="https://example.com/fixed", forward_query=False),
        edge.create(
            url="https://example.com/window",
            valid_from=(datetime.now(UTC) - timedelta(hours=1)).isoformat(),
            expires_at=(datetime.now(UTC) + timedelta(days=2)).isoformat(),
        ),
        edge.create(url="https://example.com/go", domain="go.localhost"),
        edge.create(url="https://example.com/card", preview={"title": "A card"}),  # no User-Agent: not a previewer
    ]
    plain_queries = ["", "?ref=mail", "?utm_source=x&b=&ref=a.b"]
    # Queries the function cannot merge exactly as ada-url does: not UTF-8, '+', escapes, repeated
    # or numeric names (their order is lost in CloudFront's event). They go to the origin.
    hostile_queries = ["?q=%ff&x=a+b", "?a=1&a=2", "?q=%3Cscript%3E&%0d%0a=1", "?1=a"]
    requests = [
        (method, f"/{link['code']}{query}", OTHER if link["domain"] == "go.localhost" else None)
        for link in links
        for query in plain_queries + hostile_queries
        for method in ("GET", "HEAD")
    ]
    fixed = f"/{links[5]['code']}?"  # does not forward the query: answered whatever it is
    to_origin = sum(
        1 for _, path, _ in requests if path.endswith(tuple(hostile_queries)) and not path.startswith(fixed)
    )
    # Given the origin's answers while the store holds nothing (every follow reaches the redirect)
    edge.publish()
    before = edge.lambda_follows()
    from_origin = [answer_of(edge.follow(*request)) for request in requests]
    assert edge.lambda_follows() - before == len(requests)
    assert all(answer[0] in (301, 302, 307, 308) for answer in from_origin)
    # When the links are published to the store
    edge.publish(*links)
    before = edge.lambda_follows()
    from_edge = [answer_of(edge.follow(*request)) for request in requests]
    # Then every answer is the same, status and headers (a max-age may have counted down since)
    for request, origin, at_edge in zip(requests, from_origin, from_edge, strict=True):
        assert (at_edge[0], at_edge[2]) == (origin[0], origin[2]), request
        assert set(at_edge[1]) == set(origin[1]), request
        for name, value in origin[1].items():
            if name == "cache-control" and "max-age" in value:
                at_origin, here = int(value.split("=")[1]), int(at_edge[1][name].split("=")[1])
                assert at_origin - (at_edge[3] - origin[3]) - 1 <= here <= at_origin, request
            else:
                assert at_edge[1][name] == value, request
    # And only the hostile queries reached Lambda, each once; the rest were answered at the edge
    assert edge.lambda_follows() - before == to_origin
    assert len(requests) - to_origin == len(links) * len(plain_queries) * 2 + len(hostile_queries) * 2


def test_an_ineligible_link_always_reaches_the_origin(edge):
    budgeted = edge.create(url="https://example.com/budget", max_clicks=100)
    locked = edge.create(url="https://example.com/locked", password="correct horse battery")
    later = edge.create(
        url="https://example.com/later", valid_from=(datetime.now(UTC) + timedelta(hours=1)).isoformat()
    )
    plain = edge.create(url="https://example.com/plain")
    card = edge.create(url="https://example.com/card", preview={"title": "A card"})
    edge.publish(budgeted, locked, later, plain, card)
    before = edge.lambda_follows()
    assert edge.follow("GET", f"/{budgeted['code']}").headers["location"] == "https://example.com/budget"
    assert edge.follow("GET", f"/{locked['code']}").status == 200  # the unlock form
    assert edge.follow("GET", f"/{later['code']}").status == 404  # not yet valid: unknown
    assert edge.follow("GET", f"/{plain['code']}", {"Sec-Purpose": "prefetch"}).status != 302  # declined
    assert edge.lambda_follows() - before == 4
    card_page = edge.follow("GET", f"/{card['code']}", {"User-Agent": "facebookexternalhit/1.1"})
    assert (card_page.status, b"A card" in card_page.body) == (200, True)  # the origin's card
    assert edge.lambda_follows() - before == 5
    assert edge.follow("GET", f"/{plain['code']}").headers["location"] == "https://example.com/plain"
    assert edge.follow("GET", f"/{card['code']}").headers["location"] == "https://example.com/card"
    assert edge.lambda_follows() - before == 5  # both answered at the edge: no invocation


def test_an_edge_answer_is_logged_as_the_edges_and_hosts_stay_apart(edge):
    default = edge.create(url="https://example.com/one")
    other = edge.create(url="https://example.com/two", domain="go.localhost")
    edge.publish(default, other)
    before = edge.lambda_follows()
    assert edge.follow("GET", f"/{other['code']}", OTHER).headers["location"] == "https://example.com/two"
    assert edge.follow("GET", f"/{other['code']}").status == 404  # not the default domain's: the origin says so
    assert edge.follow("HEAD", f"/{default['code']}").headers["location"] == "https://example.com/one"
    assert edge.lambda_follows() - before == 1
    assert "devstack.http edge GET -> 302" in edge.stack.output()
