"""Raw exports of the click lake: an account's rows of a range of days, as CSV or Parquet, written
by the lake's query engine into the lake's bucket and fetched from there (docs/click-lake.md).

An export is a job: the engine (Athena deployed, DuckDB locally) reads the rows and writes the file
itself, so no function holds them and an export of any size stays within Lambda's limits; the API
answers the job's state and, once done, short-lived links to its files. The SQL is the same for
both engines; the account is one of its parameters, never text of a caller's.
"""

import re
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Literal, Protocol, get_args

from shortlink.clicks.lake_rows import COLUMNS
from shortlink.clicks.stats import FORMULA_STARTS

ExportFormat = Literal["csv", "parquet"]
EXPORT_FORMATS: tuple[ExportFormat, ...] = get_args(ExportFormat)
ExportState = Literal["running", "succeeded", "failed"]
# A quarter at most: a query scans the days it names, and the workgroup's byte limit stops it anyway.
MAX_EXPORT_DAYS = 92
DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", re.ASCII)
# How long an export's download links work.
LINK_SECONDS = 900

NAMES = tuple(name for name, _ in COLUMNS)
# The account's rows of the days, each click once (Firehose may store a row twice), in time order;
# parameters (Athena takes them in WHERE clauses only): the first day, the last day, the account.
_ROWS = (
    "SELECT * FROM (SELECT *, row_number() OVER (PARTITION BY click_id ORDER BY clicked_at) AS stored "
    "FROM clicks WHERE day BETWEEN ? AND ? AND owner = ?) AS owned WHERE stored = 1"
)
_TEXT_COLUMNS = {name for name, kind in COLUMNS if kind == "string"}


def _cell(name: str) -> str:
    """A CSV column: a text cell a spreadsheet would run as a formula starts with a quote (as
    shortlink.clicks.stats.spreadsheet_cell writes every CSV's cells)."""
    if name not in _TEXT_COLUMNS:
        return name
    starts = ", ".join(f"chr({ord(start)})" for start in FORMULA_STARTS)
    return f"CASE WHEN substr({name}, 1, 1) IN ({starts}) THEN concat(chr(39), {name}) ELSE {name} END AS {name}"


# Athena writes a SELECT's answer as one CSV file (every cell quoted) where its workgroup keeps results.
CSV_SQL = f"SELECT {', '.join(_cell(name) for name in NAMES)} FROM ({_ROWS}) ORDER BY clicked_at, click_id"  # noqa: S608


def parquet_sql(location: str) -> str:
    """UNLOAD of the rows as Parquet files under `location` (s3://bucket/exports/<token>/: ours, no caller's text)."""
    return f"UNLOAD (SELECT {', '.join(NAMES)} FROM ({_ROWS}) ORDER BY clicked_at, click_id) TO '{location}' WITH (format = 'PARQUET')"  # noqa: S608,E501


class InvalidExport(ValueError):
    """An export request that cannot be run; the message names the field."""


@dataclass(frozen=True)
class ExportRequest:
    first: str  # ISO days, both included
    last: str
    form: ExportFormat

    def audited(self) -> tuple[str, ...]:
        """What its `export.started` audit entry names of it (its `changed`)."""
        return (f"format:{self.form}", f"from:{self.first}", f"to:{self.last}")


def _day(text: object, field: str) -> date:
    if not isinstance(text, str) or not DAY.fullmatch(text):
        raise InvalidExport(f"{field}: must be a day as YYYY-MM-DD in the digits 0-9")
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise InvalidExport(f"{field}: {text} is not a day of the calendar") from None


def export_request(first: object, last: object, form: object, today: date) -> ExportRequest:
    """The export asked for: InvalidExport naming the field when a day is not one, the range is
    backwards, longer than MAX_EXPORT_DAYS or after today, or the format is not one we write."""
    start, end = _day(first, "from"), _day(last, "to")
    if form not in EXPORT_FORMATS:
        raise InvalidExport(f"format: must be one of {', '.join(EXPORT_FORMATS)}")
    if end < start:
        raise InvalidExport(f"to: {end} is before from ({start})")
    if end - start >= timedelta(days=MAX_EXPORT_DAYS):
        raise InvalidExport(f"to: an export covers at most {MAX_EXPORT_DAYS} days")
    if start > today:
        raise InvalidExport(f"from: {start} has no clicks yet")
    return ExportRequest(start.isoformat(), end.isoformat(), form)


@dataclass(frozen=True)
class ExportJob:
    export_id: str
    request: ExportRequest
    state: ExportState
    files: tuple[str, ...] = ()  # links to download its files, once it succeeded
    reason: str = ""  # why it failed


class LakeExports(Protocol):
    def start(self, owner: str, request: ExportRequest) -> ExportJob:
        """Start exporting `owner`'s rows (StorageUnavailable when the engine refuses)."""
        ...

    def job(self, owner: str, export_id: str) -> ExportJob | None:
        """`owner`'s export `export_id` as it stands; None when there is none (or another account's)."""
        ...
