"""The click lake's rows: one per counted click, as Firehose turns them into Parquet (docs/click-lake.md).

A row says what the stats count a click by and nothing that identifies a person: no IP address, no
User-Agent, the visitor only as the daily-salted hash the click carries. A private link's code is a
capability, so its row names the link by the digest the audit log uses (shortlink.links.model).

Rows travel packed: Firehose bills each record rounded up to 5 KB, and its record format conversion
reads concatenated JSON documents in one record, so a record carries up to ROWS_PER_RECORD rows (the
most its multi-record deaggregation splits, for the partitioning by day).
"""

import json
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC
from typing import Protocol

from shortlink.clicks.events import ClickEvent
from shortlink.domains.model import split_key
from shortlink.links.model import logged_key

# Every column, in order, with its Glue type: template (click-lake.yaml), local Parquet and queries.
COLUMNS: tuple[tuple[str, str], ...] = (
    ("click_id", "string"),
    ("clicked_at", "timestamp"),
    ("link", "string"),
    ("domain", "string"),
    ("owner", "string"),
    ("tags", "array<string>"),
    ("region", "string"),
    ("answered", "string"),
    ("country", "string"),
    ("device", "string"),
    ("browser", "string"),
    ("os", "string"),
    ("referrer", "string"),
    ("language", "string"),
    ("utm_campaign", "string"),
    ("bot", "boolean"),
    ("agent", "string"),
    ("repeat_click", "boolean"),
    ("visitor", "string"),
    ("classifier_version", "string"),
)
# The partition column (the click's UTC day), a path segment `day=2026-11-30`, not in the files.
PARTITION = "day"
ROWS_PER_RECORD = 500
MAX_RECORD_BYTES = 1000 * 1024  # Firehose's limit per record, before base64


def lake_row(click: ClickEvent, region: str, classifier: str) -> dict[str, object]:
    """The row of one counted click; `region` is the ingest's, `classifier` the bot classifier's version."""
    domain, _ = split_key(click.code)
    return {
        "click_id": click.click_id,
        # OpenX JSON SerDe's timestamp form; Parquet keeps milliseconds
        "clicked_at": click.at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z",
        "link": logged_key(click.code),
        "domain": domain,
        "owner": click.owner,
        "tags": list(click.tags),
        "region": region,
        "answered": click.answered,
        "country": click.country,
        "device": click.device,
        "browser": click.browser,
        "os": click.os,
        "referrer": click.referrer,
        "language": click.language,
        "utm_campaign": click.campaign,
        "bot": click.bot,
        "agent": click.agent,  # person, or the bot's class (shortlink.clicks.agent_classes)
        "repeat_click": click.repeat,
        "visitor": click.visitor,
        "classifier_version": classifier,
        PARTITION: click.at.astimezone(UTC).strftime("%Y-%m-%d"),
    }


def lake_records(rows: Iterable[Mapping[str, object]]) -> list[bytes]:
    """Rows packed into Firehose records: concatenated JSON documents, at most ROWS_PER_RECORD
    and MAX_RECORD_BYTES each."""
    records: list[bytes] = []
    current: list[bytes] = []
    size = 0
    for row in rows:
        document = json.dumps(row, separators=(",", ":")).encode()
        if current and (len(current) == ROWS_PER_RECORD or size + len(document) > MAX_RECORD_BYTES):
            records.append(b"".join(current))
            current, size = [], 0
        current.append(document)
        size += len(document)
    if current:
        records.append(b"".join(current))
    return records


def record_rows(record: bytes) -> list[dict[str, object]]:
    """The rows of one record (as Firehose's JSON deaggregation splits it)."""
    decoder, text, rows, at = json.JSONDecoder(), record.decode(), [], 0
    while at < len(text):
        row, at = decoder.raw_decode(text, at)
        rows.append(row)
    return rows


class ClickLake(Protocol):
    def deliver(self, records: Sequence[bytes]) -> None:
        """Deliver these records (lake_records) to the lake, all of them or StorageUnavailable."""
