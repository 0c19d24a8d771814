"""Three regions on this machine over real HTTP (`REGIONS=... make dev`): each region's functions
on their own port, their own tables and queues, the replicator applying each table's writes to
the other regions after a lag, last writer wins. SQS redelivers handled clicks at random in every
region. moto only: dynalite has no streams to replicate from.
"""

import itertools
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from typing import Any
from urllib.parse import urlencode

import boto3
import pytest

from tests.e2e.conftest import FIXED_KEY
from tests.e2e.running_stack import Response, RunningStack, http_request
from tests.e2e.test_flow import run_admin
from tests.e2e.test_people import owner_credentials

REGIONS = ["us-east-1", "eu-central-1", "ap-southeast-1"]
HOME, EUROPE, ASIA = REGIONS
LAG_MS = 300
CACHE_TTL_SECONDS = 1
# The documented bound (replication lag + the link cache's time to live), plus what a busy shared
# machine adds to the replicator's read of the stream and to each request.
BOUND_SECONDS = LAG_MS / 1000 + CACHE_TTL_SECONDS + 3.0
LINKS_TABLE = "LinksTable"  # the template's name with make dev's empty TableNamePrefix
SETTLE_SECONDS = 30  # how long clicks may take through ingest, the stream and replication


@pytest.fixture(scope="module")
def regions() -> Iterator[RunningStack]:
    started = RunningStack.start_regions(
        REGIONS,
        LAG_MS,
        SHORTLINK_API_KEY=FIXED_KEY,
        SHORTLINK_CREATE_RATE_LIMIT="0",  # a thousand creates in a few seconds
        SHORTLINK_LINK_CACHE_TTL=str(CACHE_TTL_SECONDS),
        SHORTLINK_REDELIVERY="0.3",
    )
    assert started.ready, f"the stack of three regions did not start:\n{started.output()}"
    yield started
    assert started.stop(timeout=60) == 0, started.output()[-5000:]


@pytest.fixture
def key(regions: RunningStack) -> dict[str, str]:
    return {"Authorization": f"Bearer {regions.api_key}", "Content-Type": "application/json"}


def new_account(regions: RunningStack) -> dict[str, str]:
    """A key of a new account (one with only the caller's links), made at home by the admin command."""
    created = run_admin(regions, "keys", "create", "--name", f"regions-{uuid.uuid4().hex[:6]}")
    return {"Authorization": f"Bearer {created.strip().splitlines()[-1]}", "Content-Type": "application/json"}


def replicated(regions: RunningStack, *codes: str, among: tuple[str, ...] = tuple(REGIONS)) -> None:
    """Wait until every region's links table holds each of `codes`, read from the shared moto: a
    region's first request for a link must not come before its replica has it, or the miss is
    cached (LINK_NEGATIVE_CACHE_TTL_SECONDS) longer than the bound a test then allows. On a busy
    machine the replicator's polls can take longer than the lag; they must still arrive."""
    time.sleep(LAG_MS / 1000)
    for region in among:
        table = boto3.client(
            "dynamodb",
            region_name=region,
            endpoint_url=f"http://127.0.0.1:{regions.moto_port}",
            aws_access_key_id="testing",
            aws_secret_access_key="testing",
        )
        for code in codes:
            assert until(partial(holds, table, code), SETTLE_SECONDS, 0.2), (code, region)


def holds(table: Any, code: str) -> bool:
    key = {"code": {"S": code}}
    return "Item" in table.get_item(
        TableName=LINKS_TABLE, Key=key, ProjectionExpression="#c", ExpressionAttributeNames={"#c": "code"}
    )


def until(check: Callable[[], Any], timeout: float, pause: float = 0.1) -> Any:
    """`check()` once it is truthy; its last value when `timeout` seconds have passed."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(pause)


def create(regions: RunningStack, region: str, body: dict[str, Any], headers: dict[str, str]) -> dict[str, Any]:
    created = regions.in_region(region, "POST", "/links", body, headers)
    assert created.status == 201, created.body
    link: dict[str, Any] = created.json()
    return link


def redirects(regions: RunningStack, region: str, code: str) -> Response:
    return regions.in_region(region, "GET", f"/{code}")


def first_redirect(regions: RunningStack, region: str, code: str) -> float:
    """Seconds until `code` redirects in `region` (its first click there)."""
    started = time.monotonic()
    assert until(partial(answers, regions, region, code, 302), BOUND_SECONDS), (region, code)
    return time.monotonic() - started


ACCOUNT = "account"  # in totals: the account's clicks (GET /stats); "tag:<tag>": the tag's; else a code's


def totals(regions: RunningStack, region: str, headers: dict[str, str], names: list[str]) -> dict[str, int]:
    """Clicks of each link, account or tag named, as `region`'s API reports them."""
    counted = {}
    for name in names:
        if name == ACCOUNT:
            path = "/stats?granularity=day"
        elif name.startswith("tag:"):
            path = f"/stats?tag={name.removeprefix('tag:')}"
        else:
            path = f"/links/{name}/stats"
        counted[name] = int(regions.in_region(region, "GET", path, headers=headers).json()["clicks"])
    return counted


def reports(regions: RunningStack, region: str, headers: dict[str, str], expected: dict[str, int]) -> bool:
    return totals(regions, region, headers, list(expected)) == expected


def answers(regions: RunningStack, region: str, code: str, status: int, location: str | None = None) -> bool:
    """Whether `code` in `region` answers `status` (and redirects to `location`, if given)."""
    answer = redirects(regions, region, code)
    return answer.status == status and (location is None or answer.headers.get("location") == location)


def converged(regions: RunningStack, headers: dict[str, str], expected: dict[str, int]) -> None:
    """Every region reports exactly `expected`, and still does a moment later (nothing counted twice)."""
    for region in REGIONS:
        reports_expected = partial(reports, regions, region, headers, expected)
        assert until(reports_expected, SETTLE_SECONDS, 0.5), (region, totals(regions, region, headers, list(expected)))
    time.sleep(2)
    assert [totals(regions, region, headers, list(expected)) for region in REGIONS] == [expected] * len(REGIONS)


def test_a_link_created_at_home_redirects_in_every_region_after_the_lag(regions, key):
    link = create(regions, HOME, {"url": "https://example.com/everywhere"}, key)
    replicated(regions, link["code"])
    for region in REGIONS:
        first_redirect(regions, region, link["code"])
        assert redirects(regions, region, link["code"]).headers["location"] == "https://example.com/everywhere"


@dataclass(frozen=True)
class Clicked:
    headers: dict[str, str]
    per_link: dict[str, int]
    per_account_and_tag: dict[str, int]


@pytest.fixture(scope="module")
def clicked(regions: RunningStack) -> Clicked:
    """Three links of a new account, two of them tagged, followed in each region (SQS redelivering
    at random everywhere)."""
    headers = new_account(regions)
    tag = f"launch-{uuid.uuid4().hex[:6]}"
    bodies: list[dict[str, Any]] = [
        {"url": "https://example.com/a", "tags": [tag]},
        {"url": "https://example.com/b", "tags": [tag]},
        {"url": "https://example.com/c"},
    ]
    codes = [create(regions, HOME, body, headers)["code"] for body in bodies]
    replicated(regions, *codes)
    follows = {codes[0]: (3, 2, 1), codes[1]: (1, 2, 2), codes[2]: (0, 1, 1)}
    for code, per_region in follows.items():
        for region, times in zip(REGIONS, per_region, strict=True):
            if times:
                first_redirect(regions, region, code)
            for _ in range(times - 1):
                assert redirects(regions, region, code).status == 302
    per_link = {code: sum(per_region) for code, per_region in follows.items()}
    per_account_and_tag = {ACCOUNT: sum(per_link.values()), f"tag:{tag}": per_link[codes[0]] + per_link[codes[1]]}
    return Clicked(headers, per_link, per_account_and_tag)


def test_clicks_in_three_regions_give_exact_totals_per_link_in_every_region(regions, clicked):
    converged(regions, clicked.headers, clicked.per_link)


@pytest.mark.dynamodb_features("DynamoDB Streams")  # the account's and tag's days come from the stream
def test_clicks_in_three_regions_give_exact_totals_per_account_and_tag_in_every_region(regions, clicked):
    converged(regions, clicked.headers, clicked.per_account_and_tag)


def test_the_same_slug_claimed_at_once_in_two_regions_makes_one_link(regions, key):
    slug = f"race-{uuid.uuid4().hex[:8]}"
    barrier = threading.Barrier(2)
    answers: dict[str, Response] = {}

    def claim(region: str) -> None:
        barrier.wait()
        answers[region] = regions.in_region(
            region, "POST", "/links", {"url": f"https://example.com/{region}", "slug": slug}, key
        )

    threads = [threading.Thread(target=claim, args=(region,)) for region in (HOME, ASIA)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    statuses = sorted(answer.status for answer in answers.values())
    assert statuses == [201, 409], {region: answer.body for region, answer in answers.items()}
    [winner] = [region for region, answer in answers.items() if answer.status == 201]
    # And every region redirects the slug to the one link made
    replicated(regions, slug)
    for region in REGIONS:
        first_redirect(regions, region, slug)
        assert redirects(regions, region, slug).headers["location"] == f"https://example.com/{winner}"


def test_max_clicks_holds_across_regions(regions, key):
    link = create(regions, HOME, {"url": "https://example.com/seven", "max_clicks": 7}, key)
    replicated(regions, link["code"])  # everywhere before the first follow
    statuses = [redirects(regions, REGIONS[n % 3], link["code"]).status for n in range(30)]
    assert statuses.count(302) == 7, statuses
    assert set(statuses) == {302, 410}, statuses


def test_an_edit_and_a_delete_reach_every_region_within_the_bound(regions, key):
    link = create(regions, HOME, {"url": "https://example.com/before"}, key)
    code = link["code"]
    replicated(regions, code)
    for region in REGIONS:
        first_redirect(regions, region, code)  # each region now has it cached
    # When it is edited through one region
    edited = regions.in_region(EUROPE, "PATCH", f"/links/{code}", {"url": "https://example.com/after"}, key)
    assert edited.status == 200, edited.body
    started = time.monotonic()
    for region in REGIONS:
        assert until(partial(answers, regions, region, code, 302, "https://example.com/after"), BOUND_SECONDS), region
    assert time.monotonic() - started <= BOUND_SECONDS
    # And deleted through another
    assert regions.in_region(ASIA, "DELETE", f"/links/{code}", headers=key).status == 204
    started = time.monotonic()
    for region in REGIONS:
        assert until(partial(answers, regions, region, code, 410), BOUND_SECONDS), region
    assert time.monotonic() - started <= BOUND_SECONDS


@pytest.mark.dynamodb_features("DynamoDB Streams")
def test_a_stopped_region_leaves_the_others_redirecting_and_its_return_converges(regions, key):
    # Given links made in every region and followed once in each
    tag = f"outage-{uuid.uuid4().hex[:6]}"
    codes = [
        create(regions, region, {"url": f"https://example.com/{region}", "tags": [tag]}, key)["code"]
        for region in REGIONS
    ]
    replicated(regions, *codes)
    for code in codes:
        for region in REGIONS:
            first_redirect(regions, region, code)
    # When one region stops (its functions and its replication)
    regions.control("POST", f"/regions/{ASIA}/stop")
    try:
        # Then the others redirect every link, a new one too, and count what they answer
        made_meanwhile = create(regions, HOME, {"url": "https://example.com/meanwhile", "tags": [tag]}, key)["code"]
        codes.append(made_meanwhile)
        replicated(regions, made_meanwhile, among=(HOME, EUROPE))
        for code in codes:
            for region in (HOME, EUROPE):
                assert until(partial(answers, regions, region, code, 302), BOUND_SECONDS), (region, code)
        stopped = {entry["region"]: entry["running"] for entry in regions.control("GET", "/regions")["regions"]}
        assert stopped == {HOME: True, EUROPE: True, ASIA: False}
    finally:
        regions.control("POST", f"/regions/{ASIA}/start")
    # And once it is back (and the replicator has caught up), it redirects the link made meanwhile
    # and every region's totals agree exactly
    replicated(regions, made_meanwhile)
    first_redirect(regions, ASIA, made_meanwhile)
    expected = {code: 3 + 2 for code in codes[:3]} | {made_meanwhile: 3}  # three before, two during
    converged(regions, key, expected)


def test_the_edge_front_fails_over_per_request_and_the_unlock_form_posts_on_its_own_path(regions, key):
    # Given a plain link and a password link made at home and replicated, followed through the
    # local edge's origin group (home first, Europe second)
    plain = create(regions, HOME, {"url": "https://example.com/failover"}, key)["code"]
    locked = create(regions, HOME, {"url": "https://example.com/locked", "password": "front-pass-1"}, key)["code"]
    replicated(regions, plain, locked)
    front = regions.edge_front_port
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    # A password link's form: POST on the redirects' behaviour is refused (an origin group's),
    # on its own path it reaches the first region and unlocks
    assert http_request(front, "POST", f"/{locked}", "password=front-pass-1", form).status == 403
    unlocked = http_request(front, "POST", f"/unlock/{locked}", "password=front-pass-1", form)
    assert (unlocked.status, unlocked.headers.get("location")) == (303, "https://example.com/locked")
    # When home stops (its port refuses connections)
    regions.control("POST", f"/regions/{HOME}/stop")
    try:
        # Then a follow through the front still gets its redirect, from Europe, GET and HEAD alike
        for method in ("GET", "HEAD"):
            answer = http_request(front, method, f"/{plain}")
            assert (answer.status, answer.headers.get("location")) == (302, "https://example.com/failover"), method
        # And what is not failed over (the form's own path, on the first origin only) finds no origin
        assert http_request(front, "POST", f"/unlock/{locked}", "password=front-pass-1", form).status == 502
    finally:
        regions.control("POST", f"/regions/{HOME}/start")


def test_a_thousand_creates_spread_over_the_regions_never_repeat_a_code(regions, key):
    spread = itertools.cycle(REGIONS)
    targets = [next(spread) for _ in range(1000)]

    def create_in(numbered: tuple[int, str]) -> str:
        number, region = numbered
        return str(create(regions, region, {"url": f"https://example.com/n{number}"}, key)["code"])

    with ThreadPoolExecutor(max_workers=6) as pool:
        codes = list(pool.map(create_in, enumerate(targets)))
    assert len(codes) == 1000
    assert len(set(codes)) == 1000


def test_one_user_pool_its_first_owner_printed_signs_in_to_the_console_in_every_region(regions):
    # Given the first owner the stack printed, made once in its one user pool
    email, password = owner_credentials(regions)
    for region in REGIONS:
        # When they sign in to the console of each region
        form = urlencode({"email": email, "password": password})
        headers = {"Content-Type": "application/x-www-form-urlencoded", "Origin": regions.region_url(region)}
        signed = regions.in_region(region, "POST", "/console/sign-in/person", form, headers)
        # Then each takes them, as a member of the key's workspace (replicated from home)
        assert (signed.status, signed.headers.get("location")) == (303, "/console"), (region, signed.body[:300])


@pytest.mark.dynamodb_features("DynamoDB Streams")
def test_while_home_is_stopped_what_is_decided_there_is_refused_elsewhere_with_a_503(regions, key):
    # Given a max_clicks link and a slug made at home, replicated everywhere
    run = uuid.uuid4().hex[:6]
    budgeted = create(regions, HOME, {"url": "https://example.com/budget", "max_clicks": 5}, key)["code"]
    slugged = create(regions, HOME, {"url": "https://example.com/slugged", "slug": f"home-{run}"}, key)["code"]
    replicated(regions, budgeted, slugged)
    # When the home region stops: its functions, its replication and its tables
    regions.control("POST", f"/regions/{HOME}/stop")
    try:
        # Then its port refuses connections at once, rather than leave them hanging
        with pytest.raises(ConnectionRefusedError):
            regions.in_region(HOME, "GET", "/robots.txt")
        # and away from home, a slug, an edit and a key are refused with a 503 to retry
        refused = [
            regions.in_region(EUROPE, "POST", "/links", {"url": "https://example.com/s", "slug": f"away-{run}"}, key),
            regions.in_region(EUROPE, "PATCH", f"/links/{slugged}", {"url": "https://example.com/edited"}, key),
            regions.in_region(EUROPE, "POST", "/keys", {"name": f"during-{run}", "scopes": ["links:read"]}, key),
        ]
        assert [answer.status for answer in refused] == [503, 503, 503], [answer.body for answer in refused]
        assert all(int(answer.headers["retry-after"]) > 0 for answer in refused)
        # a max_clicks link answers 503 rather than be followed beyond its budget
        assert redirects(regions, EUROPE, budgeted).status == 503
        # while links of generated codes are made, and every link made before redirects
        made = create(regions, EUROPE, {"url": "https://example.com/during"}, key)["code"]
        for code in (made, slugged):
            assert until(partial(answers, regions, EUROPE, code, 302), BOUND_SECONDS), code
    finally:
        regions.control("POST", f"/regions/{HOME}/start")
    # And once home is back, the refused slug was never half-made: it is free, and the edit was not made
    assert (
        create(regions, EUROPE, {"url": "https://example.com/s", "slug": f"away-{run}"}, key)["code"] == f"away-{run}"
    )
    assert (
        regions.in_region(HOME, "GET", f"/links/{slugged}", headers=key).json()["url"] == "https://example.com/slugged"
    )
    assert until(partial(answers, regions, EUROPE, budgeted, 302), BOUND_SECONDS)


def test_under_load_a_link_written_at_home_from_away_never_404s_where_it_was_made(regions, key):
    # Given 48 links written at home from the two regions away from it, six at a time: slugs and
    # max_clicks links, each followed the moment its create returns, where it was made and in the
    # other region away from home
    run = uuid.uuid4().hex[:6]

    def make_and_follow(number: int) -> list[int]:
        made_in, other = (EUROPE, ASIA) if number % 2 else (ASIA, EUROPE)
        body = {"slug": f"load-{run}-{number}"} if number % 4 < 2 else {"max_clicks": 10}
        code = create(regions, made_in, {"url": f"https://example.com/{number}", **body}, key)["code"]
        return [redirects(regions, made_in, code).status, redirects(regions, other, code).status]

    with ThreadPoolExecutor(max_workers=6) as pool:
        statuses = [status for answers in pool.map(make_and_follow, range(48)) for status in answers]
    # Then every follow redirected: none waited for the write to replicate back
    assert statuses == [302] * 96
