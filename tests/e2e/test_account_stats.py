"""GET /stats over real HTTP: a new key's links and one of its tags, clicked through the local
stack, counted by ingest into the links' days and by the stream aggregator (the local stack's
poller of the stats table's stream) into the account's and the tag's, read back as JSON and CSV."""

import time
from typing import Any

import pytest

from tests.e2e.running_stack import RunningStack
from tests.e2e.test_flow import run_admin


def account_stats(stack: RunningStack, headers: dict[str, str], query: str, expected: int) -> dict[str, Any]:
    """The report once it counts `expected` clicks (ingest runs a second or two behind)."""
    deadline = time.monotonic() + 15
    while True:
        report: dict[str, Any] = stack.request("GET", f"/stats?{query}", headers=headers).json()
        if report["clicks"] >= expected or time.monotonic() > deadline:
            return report
        time.sleep(0.25)


@pytest.mark.dynamodb_features("DynamoDB Streams")  # the account's and tag's days come from the stream
def test_a_keys_links_and_one_tags_are_reported_as_json_and_csv(stack):
    # Given a new key with two tagged links and an untagged one, followed 3, 1 and 2 times
    key = run_admin(stack, "keys", "create", "--name", "carol").strip().splitlines()[-1]
    auth = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
    bodies = [
        {"url": "https://example.com/a", "tags": ["launch"]},
        {"url": "https://example.com/b", "tags": ["launch", "mail"]},
        {"url": "https://example.com/c"},
    ]
    links = [stack.request("POST", "/links", body, auth).json() for body in bodies]
    codes = [link["code"] for link in links]
    domain = links[0]["domain"]  # the local stack's default domain
    for code, follows in zip(codes, (3, 1, 2), strict=True):
        for _ in range(follows):
            assert stack.request("GET", f"/{code}").status == 302
    # Then the account counts all six, the tag its links' four, each with its top links
    everything = account_stats(stack, auth, "granularity=day", expected=6)
    assert (everything["tag"], everything["clicks"]) == (None, 6)
    assert everything["top_links"] == [
        {"code": codes[0], "domain": domain, "clicks": 3},
        {"code": codes[2], "domain": domain, "clicks": 2},
        {"code": codes[1], "domain": domain, "clicks": 1},
    ]
    launch = account_stats(stack, auth, "tag=launch", expected=4)
    assert (launch["tag"], launch["clicks"]) == ("launch", 4)
    assert [(link["code"], link["clicks"]) for link in launch["top_links"]] == [(codes[0], 3), (codes[1], 1)]
    csv = stack.request("GET", "/stats?tag=launch&format=csv", headers=auth)
    assert csv.status == 200
    assert csv.headers["content-type"].startswith("text/csv")
    lines = csv.body.decode().splitlines()
    assert lines[0] == (
        "start,clicks,bots,unique_visitors,repeat_clicks,people,"
        "crawler,previewer,scanner,monitor,library,ai_agent,unknown_bot"
    )
    assert lines[-1].split(",")[1] == "4"
    # And another key sees none of it, a malformed tag is refused by name
    assert (
        stack.request("GET", "/stats?tag=launch", headers={"Authorization": f"Bearer {stack.api_key}"}).json()[
            "top_links"
        ]
        == []
    )
    refused = stack.request("GET", "/stats?tag=not%20a%20tag", headers=auth)
    assert refused.status == 422
    assert "tag" in refused.json()["message"]
