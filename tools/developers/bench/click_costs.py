"""What counting clicks and reading their stats cost, as DynamoDB bills it (tools/developers/bench/write_units).

- a hot link: 2,000 clicks/s for 10 minutes (1.2 million clicks, simulated by timestamps) in
  packs of 100 clicks (about 20 busy redirect environments, each sending a pack every ~50 ms of
  the link's traffic: conservative, a busy environment packs up to 1,000 clicks or ~1 s), ingest
  batches of 10 packs (the event source's 2 s window would gather more; several pollers share
  the queue);
- 1,000 cool links: batches of 1,000 single-click packs, one click per link (idle environments
  send each click at once: the dearest packing there is);
- the clicks of both carry their owner (and the hot link a tag), as the redirect sends them; the
  stream aggregator runs after each ingest batch (its dearest case) and its write units (the
  account's and tag's days) are reported beside ingest's, per 1,000 clicks and per stream batch;
- stats reads of the hot link, its hot day among 400 days of background traffic (2,000 clicks
  a day over 24 hours, ~1,500 distinct visitors, 40 countries, 30 referrers), for 30 and 400 days.
"""

import json
import os
import random
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

import boto3

from shortlink import wiring as services
from shortlink.access.api_keys import hash_api_key, key_id_for
from shortlink.clicks.agent_classes import BOT_CLASSES
from tests.events import bearer, http_event
from tools.developers.bench.write_units import WriteMeter, item_size, metering_writes

HOT_RATE = 2_000
HOT_SECONDS = int(os.environ.get("BENCH_HOT_SECONDS", "600"))
HOT_PACK = 100
HOT_BATCH_PACKS = 10
COOL_LINKS = 1_000
COOL_BATCHES = 3
BACKGROUND_DAYS = 400
BACKGROUND_CLICKS = 2_000
BACKGROUND_PACK = 20
STATS_CALLS = 20
BENCH_TAG = "launch"

COUNTRIES = [f"{a}{b}" for a in "ABCDEFGH" for b in "XYZQW"]  # 40
DEVICES = ["mobile", "desktop", "tablet", "bot"]
BROWSERS = ["chrome", "safari", "firefox", "edge", "samsung", "opera", "other", "unknown"]
SYSTEMS = ["android", "ios", "windows", "macos", "linux", "unknown"]
REFERRERS = ["(direct)"] + [f"site{n}.example" for n in range(29)]
LANGUAGES = ["en", "de", "fr", "es", "pt", "it", "nl", "pl", "tr", "ru", "ja", "ko", "zh", "ar", "hi", "sv"]


class Clicks:
    """Click JSON as the redirect queues it, fast to make in bulk."""

    def __init__(self, seed: int, visitors: int) -> None:
        self.rng = random.Random(seed)  # noqa: S311 - made-up traffic, not secrets
        self.visitors = [f"{self.rng.getrandbits(128):032x}" for _ in range(visitors)]
        self.serial = 0

    def click(self, code: str, at: datetime) -> str:
        rng = self.rng
        self.serial += 1
        agent = f'"agent":"{rng.choice(BOT_CLASSES)}","bot":true,' if rng.random() < 0.05 else ""
        return (
            f'{{"click_id":"b{self.serial}","code":"{code}","at":"{at.isoformat()}",'
            f'"country":"{rng.choice(COUNTRIES)}","device":"{rng.choice(DEVICES)}",'
            f'"browser":"{rng.choice(BROWSERS)}","os":"{rng.choice(SYSTEMS)}",'
            f'"referrer":"{rng.choice(REFERRERS)}","language":"{rng.choice(LANGUAGES)}",'
            f'{agent}"visitor":"{rng.choice(self.visitors)}"}}'
        )

    def pack(self, clicks: list[str], owners: dict[str, dict[str, Any]] | None = None) -> str:
        """A pack; `owners`: its links' owners and tags, as the redirect names them once per link."""
        self.serial += 1
        links = f',"links":{json.dumps(owners, separators=(",", ":"))}' if owners else ""
        return f'{{"v":2,"pack":"p{self.serial}","clicks":[{",".join(clicks)}]{links}}}'


def record(message_id: str, body: str) -> dict[str, Any]:
    return {"messageId": message_id, "receiptHandle": message_id, "body": body, "attributes": {}}


@contextmanager
def metered() -> Iterator[WriteMeter]:
    with metering_writes(services.click_counter()._dynamodb(), boto3.client("dynamodb")) as meter:
        yield meter


# As the queue does (maxReceiveCount 5), failed messages are offered again: on this shared
# machine a store call may time out; the ledger counts each pack once whatever is re-offered.
RECEIVES = 5
REDELIVERED: list[int] = []  # messages offered again, per ingest call that needed it


def ingest(call: Callable[[dict[str, Any]], Any], bodies: list[str]) -> None:
    records = [record(f"m{index}", body) for index, body in enumerate(bodies)]
    for _ in range(RECEIVES):
        failed = {failure["itemIdentifier"] for failure in call({"Records": records})["batchItemFailures"]}
        if not failed:
            return
        records = [message for message in records if message["messageId"] in failed]
        REDELIVERED.append(len(records))
    raise RuntimeError(f"ingest failed {len(records)} messages {RECEIVES} times")


def split_units(meter: WriteMeter, clicks: int, batches: int, stream_batches: int) -> dict[str, Any]:
    """Ingest's write units (the links' items) beside the stream aggregator's (the accounts' and
    tags' items), each per 1,000 clicks; the aggregator's also per ingest batch (whose changes
    it applies in one stream batch; the next holds only its own writes, and applies nothing)."""
    ingest_units = meter.units - meter.account_units
    return {
        "write_units": ingest_units,
        "write_units_per_1000_clicks": round(ingest_units * 1000 / clicks, 2),
        "account_write_units": meter.account_units,
        "account_write_units_per_1000_clicks": round(meter.account_units * 1000 / clicks, 2),
        "account_write_units_per_batch": round(meter.account_units / batches, 2),
        "stream_batches": stream_batches,
    }


def hot_link(
    call: Callable[[dict[str, Any]], Any], aggregate: Callable[[], int], code: str, owner: str, start: datetime
) -> dict[str, Any]:
    clicks = Clicks(2_000, visitors=400_000)
    owners = {code: {"owner": owner, "tags": [BENCH_TAG]}}  # its account's and its tag's days too
    total = HOT_RATE * HOT_SECONDS
    step = timedelta(seconds=1 / HOT_RATE)
    stream_batches = 0
    with metered() as meter:
        for first in range(0, total, HOT_PACK * HOT_BATCH_PACKS):
            bodies = []
            for pack_start in range(first, min(first + HOT_PACK * HOT_BATCH_PACKS, total), HOT_PACK):
                bodies.append(
                    clicks.pack(
                        [clicks.click(code, start + n * step) for n in range(pack_start, pack_start + HOT_PACK)],
                        owners,
                    )
                )
            ingest(call, bodies)
            stream_batches += aggregate()  # after each ingest batch: the dearest the stream can be
    return {
        "clicks": total,
        "clicks_per_second": HOT_RATE,
        "clicks_per_pack": HOT_PACK,
        "packs_per_batch": HOT_BATCH_PACKS,
        **split_units(meter, total, -(-total // (HOT_PACK * HOT_BATCH_PACKS)), stream_batches),
        "writes": dict(meter.writes),
        "largest_item_bytes": meter.largest_item,
    }


def cool_links(
    call: Callable[[dict[str, Any]], Any], aggregate: Callable[[], int], owner: str, at: datetime
) -> dict[str, Any]:
    clicks = Clicks(1_000, visitors=50_000)
    codes = [f"cool{n:04d}" for n in range(COOL_LINKS)]
    stream_batches = 0
    with metered() as meter:
        for batch in range(COOL_BATCHES):
            moment = at + timedelta(minutes=batch)
            packs = [clicks.pack([clicks.click(code, moment)], {code: {"owner": owner, "tags": []}}) for code in codes]
            ingest(call, packs)
            stream_batches += aggregate()
    units = split_units(meter, COOL_LINKS * COOL_BATCHES, COOL_BATCHES, stream_batches)
    return {
        "links": COOL_LINKS,
        "batches": COOL_BATCHES,
        "clicks_per_link_and_batch": 1,
        **units,
        "writes": dict(meter.writes),
        "write_units_per_link_and_batch": round(units["write_units"] / (COOL_LINKS * COOL_BATCHES), 3),
    }


def background(call: Callable[[dict[str, Any]], Any], code: str, last_day: datetime, skip: datetime) -> None:
    """BACKGROUND_DAYS of ordinary traffic before `last_day`, one ingest batch per day."""
    clicks = Clicks(400, visitors=1_600)
    for back in range(BACKGROUND_DAYS):
        day = (last_day - timedelta(days=back)).replace(hour=0, minute=0, second=0, microsecond=0)
        if day.date() == skip.date():
            continue
        moments = sorted(day + timedelta(seconds=clicks.rng.uniform(0, 86_399)) for _ in range(BACKGROUND_CLICKS))
        made = [clicks.click(code, moment) for moment in moments]
        ingest(call, [clicks.pack(made[n : n + BACKGROUND_PACK]) for n in range(0, len(made), BACKGROUND_PACK)])


def stats_reads(call: Callable[[dict[str, Any]], Any], code: str, key: str, end: datetime, days: int) -> dict[str, Any]:
    query = {
        "from": (end - timedelta(days=days)).strftime("%Y-%m-%dT%H:00:00Z"),
        "to": end.strftime("%Y-%m-%dT%H:00:00Z"),
    }
    event = http_event(
        "GET",
        f"/links/{code}/stats",
        route="/links/{code}/stats",
        path_parameters={"code": code},
        query=query,
        headers=bearer(key),
    )
    client = services.click_stats()._dynamodb()
    pages: list[dict[str, Any]] = []

    def count_page(parsed: dict[str, Any], **_: Any) -> None:
        pages.append(parsed)

    client.meta.events.register("after-call.dynamodb.Query", count_page)
    try:
        response = call(event)
        if response["statusCode"] != 200:
            raise RuntimeError(f"stats answered {response['statusCode']}: {response['body']}")
        read = list(pages)
        durations = []
        for _ in range(STATS_CALLS):
            started = time.perf_counter_ns()
            call(event)
            durations.append(time.perf_counter_ns() - started)
    finally:
        client.meta.events.unregister("after-call.dynamodb.Query", count_page)
    items = [item for page in read for item in page.get("Items", [])]
    return {
        "days": days,
        "query_pages": len(read),
        "items": len(items),
        "bytes_read": sum(item_size(item) for item in items),
        "p50_ms": round(statistics.median(durations) / 1e6, 2),
    }


def measure_click_costs(
    ingest_call: Callable[[dict[str, Any]], Any],
    aggregate: Callable[[], int],
    manage_call: Callable[[dict[str, Any]], Any],
    hot_code: str,
    key: str,
    progress: Callable[[str], None],
    measured: Callable[[dict[str, Any]], None] = lambda part: None,
) -> dict[str, Any]:
    """The click part; `measured` gets it as far as it is measured after each step (a run that
    fails later keeps what it measured)."""
    today = datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
    hot_start = (today - timedelta(days=1)).replace(hour=14)
    owner = key_id_for(hash_api_key(key))
    part: dict[str, Any] = {}
    progress(f"ingest cost: a hot link, {HOT_RATE} clicks/s for {HOT_SECONDS} s")
    part["hot_link"] = hot_link(ingest_call, aggregate, hot_code, owner, hot_start)
    measured(part)
    progress(f"ingest cost: {COOL_LINKS} cool links x {COOL_BATCHES} batches")
    part["cool_links"] = cool_links(ingest_call, aggregate, owner, today - timedelta(hours=2))
    measured(part)
    progress(f"stats: {BACKGROUND_DAYS} days of background traffic for the hot link")
    background(ingest_call, hot_code, today, skip=hot_start)
    progress("stats reads: 30 and 400 days")
    end = today + timedelta(hours=1)
    part["stats_30_days"] = stats_reads(manage_call, hot_code, key, end, 30)
    measured(part)
    part["stats_400_days"] = stats_reads(manage_call, hot_code, key, end, 400)
    return {"messages_offered_again": sum(REDELIVERED), **part}
