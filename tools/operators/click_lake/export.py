"""A raw export of one account's rows for a range of days, streamed: DuckDB reads the Parquet
objects a batch of rows at a time and each batch is written out before the next is read, so an
export of any size holds one batch in memory. CSV cells a spreadsheet would run as formulas are
written as text (shortlink.clicks.stats.spreadsheet_cell); NDJSON as the rows are."""

import csv
import json
from datetime import datetime
from typing import Any, TextIO

import duckdb

from shortlink.clicks.lake_rows import COLUMNS
from shortlink.clicks.stats import spreadsheet_cell

FORMATS = ("csv", "ndjson")
BATCH_ROWS = 10_000
NAMES = [name for name, _ in COLUMNS]
# Each click once (a row Firehose stored twice, once), in time order.
EXPORT_SQL = (
    f"SELECT {', '.join(NAMES)} FROM clicks WHERE day BETWEEN ? AND ? AND owner = ? "  # noqa: S608 (our columns)
    "QUALIFY row_number() OVER (PARTITION BY click_id ORDER BY clicked_at) = 1 ORDER BY clicked_at, click_id"
)


def _text(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat(timespec="milliseconds") + "Z"
    return value


def export_rows(database: duckdb.DuckDBPyConnection, owner: str, first: str, last: str, form: str, out: TextIO) -> int:
    """Write the account's rows of these days to `out` in `form` (csv or ndjson); how many."""
    answer = database.execute(EXPORT_SQL, [first, last, owner])
    writer = csv.writer(out) if form == "csv" else None
    if writer is not None:
        writer.writerow(NAMES)
    written = 0
    while batch := answer.fetchmany(BATCH_ROWS):
        for row in batch:
            values = [_text(value) for value in row]
            if writer is not None:
                writer.writerow([spreadsheet_cell(value) if isinstance(value, str) else value for value in values])
            else:
                out.write(json.dumps(dict(zip(NAMES, values, strict=True)), separators=(",", ":")) + "\n")
        written += len(batch)
    return written
