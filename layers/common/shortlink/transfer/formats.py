"""The files an import reads, each turned into records in one shape: a dict of this API's link
fields (`url`, `slug`, `title`, `tags`, `expires_at`, ...) with the line or entry it came from.

Formats: our CSV (`url, slug, title, tags, expires_at`, and the other columns an export writes),
our JSON export, a Bitly CSV export, YOURLS' SQL dump and CSV export, Shlink's CSV export and
Kutt's JSON export. Pure text work: nothing here validates a link or calls AWS.
"""

import contextlib
import csv
import io
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal
from urllib.parse import urlsplit

from shortlink import accepted_moments
from shortlink.errors import ShortlinkError
from shortlink.numbers import NotAWholeNumber, whole_number

Format = Literal["csv", "json", "bitly", "yourls", "shlink", "kutt"]
FORMATS: tuple[Format, ...] = ("csv", "json", "bitly", "yourls", "shlink", "kutt")
# Our CSV's columns besides `url` (an export writes them all); others (short_url, ...) are ignored.
CSV_FIELDS = (
    "slug",
    "title",
    "tags",
    "valid_from",
    "expires_at",
    "redirect_type",
    "private",
    "max_clicks",
    "rules",
    "deleted_at",
    "domain",
)
CSV_ALIASES = {"code": "slug"}
EXPORT_ONLY_COLUMNS = frozenset({"short_url", "created_at", "has_password"})
TAG_SEPARATORS = re.compile(r"[|,;]")
NOT_TAG_CHARACTERS = re.compile(r"[^A-Za-z0-9_-]+")
MAX_TAG_LENGTH = 32
# Possessive (`++`, `*+`) and bounded: a search never scans the rest of the file from each INSERT.
SQL_INSERT = re.compile(
    r"INSERT\s++(?:IGNORE\s++)?INTO\s++`?(\w{1,64})`?\s*+(\(([^)]{0,2000})\))?\s*+VALUES\s*+", re.IGNORECASE
)


class UnreadableFile(ShortlinkError):
    """The file is not one of the formats, or not the one named; the message says why."""


class TooManyRecords(UnreadableFile):
    """The file holds more records than the reader was allowed (found while reading, not after)."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"the file holds more than {limit} links")
        self.limit = limit


@dataclass(frozen=True)
class Record:
    """One link of a file: `line` is where it starts (a CSV's line, a dump's line, a JSON
    entry's position from 1), `fields` this API's names for what the file says."""

    line: int
    fields: dict[str, Any]
    # What the file says that no link can take, each naming its field ("max_clicks: ..."): the
    # record fails with these, whatever its other fields.
    problems: tuple[str, ...] = ()


def tags_of(text: str) -> list[str]:
    """Tags as another shortener writes them ("Spring Sale|news"), made into ours
    ("Spring-Sale", "news"): other characters become '-', at most 32 of them."""
    tags = (NOT_TAG_CHARACTERS.sub("-", tag.strip()).strip("-")[:MAX_TAG_LENGTH] for tag in TAG_SEPARATORS.split(text))
    return list(dict.fromkeys(tag for tag in tags if tag))


# A body sent as one of these must read as that kind of file; others (text/plain, ...) say nothing.
MEDIA_KINDS = {"application/json": "JSON", "text/csv": "CSV", "application/sql": "SQL"}


def _kind(text: str) -> str:
    start = text.lstrip("\ufeff \t\r\n")
    return "JSON" if start.startswith(("{", "[")) else "SQL" if _sql_inserts(start) else "CSV"


def detect(text: str) -> Format:
    """The format of a file, from its first characters or its CSV header."""
    start = text.lstrip("\ufeff \t\r\n")
    if start.startswith(("{", "[")):
        try:
            document = json.loads(start)
        except ValueError:
            raise UnreadableFile("the file starts like JSON but is not JSON") from None
        entries = document.get("data") if isinstance(document, dict) else document
        if isinstance(entries, list) and any(isinstance(entry, dict) and "target" in entry for entry in entries):
            return "kutt"
        return "json"
    if _sql_inserts(start):
        return "yourls"
    header = {name.strip().lower() for name in next(csv.reader(io.StringIO(start)), [])}
    if "long_url" in header:
        return "bitly"
    if "longurl" in header:
        return "shlink"
    if "keyword" in header:
        return "yourls"
    if "url" in header:
        return "csv"
    raise UnreadableFile(
        "the format is not recognised: a CSV needs a header (url, slug, ...), or name the format "
        f"({', '.join(FORMATS)})"
    )


def read(
    text: str,
    file_format: Format | Literal["auto"] = "auto",
    media_type: str | None = None,
    limit: int | None = None,
) -> list[Record]:
    """The records of a file in `file_format` (detected with "auto"), sent as `media_type`;
    TooManyRecords as soon as more than `limit` are read."""
    text = text.removeprefix("\ufeff")
    expected = MEDIA_KINDS.get((media_type or "").split(";")[0].strip().lower())
    if expected is not None and _kind(text) != expected:
        raise UnreadableFile(f"the file is sent as {media_type} but does not read as {expected}")
    try:
        chosen = detect(text) if file_format == "auto" else file_format
        reader = _yourls_sql if chosen == "yourls" and _sql_inserts(text) else READERS[chosen]
        records = []
        for record in reader(text):
            records.append(record)
            if limit is not None and len(records) > limit:
                raise TooManyRecords(limit)
        return records
    except csv.Error as error:  # a NUL byte, an unclosed quote at the end, ...
        raise UnreadableFile(f"the CSV cannot be read: {error}") from None
    except RecursionError:
        raise UnreadableFile("the JSON is nested too deeply") from None


def _csv_rows(text: str) -> Iterator[tuple[int, dict[str, str]]]:
    """Each data row of a CSV with a header, by lower-cased column name, and the line it starts on."""
    reader = csv.DictReader(io.StringIO(text))
    if reader.fieldnames is None:
        raise UnreadableFile("the CSV file is empty")
    reader.fieldnames = [name.strip().lower() for name in reader.fieldnames]
    line = reader.line_num + 1
    for row in reader:
        if any((value or "").strip() for value in row.values() if isinstance(value, str)):
            yield line, {name: (value or "").strip() for name, value in row.items() if isinstance(name, str)}
        line = reader.line_num + 1


def _given(fields: dict[str, Any]) -> dict[str, Any]:
    # An empty cell says nothing: the field keeps its default.
    return {name: value for name, value in fields.items() if value not in ("", None, [])}


# An export made without include=password_hash says a link has a password without carrying it:
# imported, that link would open to anyone. Such a record fails instead.
UNCARRIED_HASH_PROBLEM = (
    "has_password: the link has a password this file does not carry "
    "(export as JSON with include=password_hash, an admin key's, to move it)"
)


def _password_not_carried(has_password: object, fields: dict[str, Any]) -> bool:
    said = has_password is True or (isinstance(has_password, str) and has_password.strip().lower() == "true")
    return said and not fields.get("password_hash")


def _our_csv(text: str) -> Iterator[Record]:
    for line, row in _csv_rows(text):
        if "url" not in row:
            raise UnreadableFile("the CSV file has no url column")
        fields: dict[str, Any] = {"url": row["url"]}
        for column, value in row.items():
            name = CSV_ALIASES.get(column, column)
            if name in CSV_FIELDS:
                fields[name] = value
        if "tags" in fields:
            fields["tags"] = tags_of(fields["tags"])
        problems = []
        for name in ("redirect_type", "max_clicks"):
            if fields.get(name):
                try:
                    fields[name] = whole_number(fields[name], name)
                except NotAWholeNumber as error:  # the API's ranges are checked with the record
                    problems.append(str(error))
                    del fields[name]
        if "private" in fields:
            fields["private"] = {"true": True, "false": False}.get(fields["private"].lower(), fields["private"])
        if fields.get("rules"):
            with contextlib.suppress(ValueError):  # else left as text: validation names the field
                fields["rules"] = json.loads(fields["rules"])
        if _password_not_carried(row.get("has_password"), fields):
            problems.append(UNCARRIED_HASH_PROBLEM)
        yield Record(line, _given(fields), tuple(problems))


def _json_entries(text: str, member: str, shape: str) -> list[dict[str, Any]]:
    """The entries of a JSON file that is a list, or an object holding one as `member`; an entry
    that is not an object reads as an empty one (its error is then "url: field required")."""
    try:
        document = json.loads(text)
    except ValueError:
        raise UnreadableFile("the file is not JSON") from None
    entries = document.get(member) if isinstance(document, dict) else document
    if not isinstance(entries, list):
        raise UnreadableFile(shape)
    return [dict(entry) if isinstance(entry, dict) else {} for entry in entries]


def _our_json(text: str) -> Iterator[Record]:
    links = _json_entries(text, "links", 'a JSON import is {"links": [...]} as an export writes it, or a list of links')
    for position, fields in enumerate(links, start=1):
        if "code" in fields:
            fields["slug"] = fields.pop("code")
        problems = (UNCARRIED_HASH_PROBLEM,) if _password_not_carried(fields.get("has_password"), fields) else ()
        for name in EXPORT_ONLY_COLUMNS:
            fields.pop(name, None)
        yield Record(position, {name: value for name, value in fields.items() if value is not None}, problems)


def _path_code(short_url: str) -> str:
    """The code of a short URL (`https://bit.ly/3xYz` or `bit.ly/3xYz`): its path."""
    text = short_url if "//" in short_url else f"//{short_url}"
    return urlsplit(text).path.strip("/")


def _bitly(text: str) -> Iterator[Record]:
    for line, row in _csv_rows(text):
        code = row.get("custom_bitlink") or row.get("link") or row.get("bitlink") or ""
        fields = {
            "url": row.get("long_url", ""),
            "slug": _path_code(code) if code else "",
            "title": row.get("title", ""),
            "tags": tags_of(row.get("tags", "")),
        }
        yield Record(line, _given(fields))


def _yourls_csv(text: str) -> Iterator[Record]:
    for line, row in _csv_rows(text):
        fields = {"url": row.get("url", ""), "slug": row.get("keyword", ""), "title": row.get("title", "")}
        yield Record(line, _given(fields))


YOURLS_COLUMNS = ("keyword", "url", "title", "timestamp", "ip", "clicks")
# One value of a row and what follows it; possessive, so a value that does not end is not retried.
SQL_VALUE = re.compile(
    r"\s*+(?:'((?:[^'\\]++|\\.|'')*+)'|(NULL)|(-?[0-9]++(?:\.[0-9]++)?+))\s*+(,|\))", re.IGNORECASE | re.DOTALL
)
SQL_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "0": "\0"}
SQL_ROW_SEPARATOR = re.compile(r"\s*+,\s*+")
# Outside an INSERT a dump is read token by token: comments (`-- `, `#`, `/* */`) and quoted text
# are skipped whole, so an INSERT inside one is none; the rest goes in long runs. Each token is
# matched once: the read is linear in the file's length.
SQL_TOKEN = re.compile(
    r"--(?:[ \t\r][^\n]*+|$)|\#[^\n]*+|/\*(?:[^*]++|\*(?!/))*+(?:\*/|\Z)"
    r"|'(?:[^'\\]++|\\[\s\S])*+(?:'|\Z)|\"(?:[^\"\\]++|\\[\s\S])*+(?:\"|\Z)|`[^`]*+(?:`|\Z)"
    r"|(?P<insert>INSERT\s)|(?:[^-\#/'\"`i]|-(?!-)|/(?!\*)|i(?!nsert\s))++|[\s\S]",
    re.IGNORECASE | re.MULTILINE,
)


def _sql_text(quoted: str) -> str:
    unescaped = re.sub(r"\\(.)", lambda match: SQL_ESCAPES.get(match[1], match[1]), quoted, flags=re.DOTALL)
    return unescaped.replace("''", "'")


def _next_insert(text: str, position: int) -> "re.Match[str] | None":
    """The first INSERT statement's head at or after `position` that no comment or text holds."""
    while position < len(text):
        token = SQL_TOKEN.match(text, position)
        if token is None:  # not reached: the last alternative takes any character
            return None
        if token["insert"] is not None and (insert := SQL_INSERT.match(text, position)) is not None:
            return insert
        position = token.end()
    return None


def _sql_inserts(text: str) -> bool:
    return _next_insert(text, 0) is not None


class _Lines:
    """Line numbers of increasing positions in a text, counted once over it."""

    def __init__(self, text: str) -> None:
        self.text, self.counted_to, self.line = text, 0, 1

    def at(self, position: int) -> int:
        self.line += self.text.count("\n", self.counted_to, position)
        self.counted_to = position
        return self.line


def _sql_row(text: str, position: int, line: int) -> tuple[list[Any], int]:
    """The values of the row `(...)` at `position` and where it ends."""
    values: list[Any] = []
    position += 1
    while True:
        value = SQL_VALUE.match(text, position)
        if value is None:
            raise UnreadableFile(f"line {line}: an SQL value that cannot be read")
        values.append(_sql_text(value[1]) if value[1] is not None else value[3])
        position = value.end()
        if value[4] == ")":
            return values, position


def _yourls_sql(text: str) -> Iterator[Record]:
    """The rows of YOURLS' `yourls_url` table in a dump (mysqldump's or phpMyAdmin's INSERTs)."""
    lines = _Lines(text)
    insert = _next_insert(text, 0)
    while insert is not None:
        position = insert.end()
        columns = [name.strip(" `") for name in insert[3].split(",")] if insert[3] else list(YOURLS_COLUMNS)
        # yourls_log, yourls_options: not links
        while insert[1].lower().endswith("_url") and position < len(text) and text[position] == "(":
            line = lines.at(position)
            values, position = _sql_row(text, position, line)
            row = dict(zip(columns, values, strict=False))
            fields = {"url": row.get("url") or "", "slug": row.get("keyword") or "", "title": row.get("title") or ""}
            yield Record(line, _given(fields))
            separator = SQL_ROW_SEPARATOR.match(text, position)
            position = separator.end() if separator else position
        insert = _next_insert(text, position)


def _shlink(text: str) -> Iterator[Record]:
    for line, row in _csv_rows(text):
        code = row.get("shortcode") or (_path_code(row["shorturl"]) if row.get("shorturl") else "")
        fields = {
            "url": row.get("longurl", ""),
            "slug": code,
            "title": row.get("title", ""),
            "tags": tags_of(row.get("tags", "")),
        }
        yield Record(line, _given(fields))


# Kutt's milliseconds since 1970 that are moments the API takes (accepted_moments.RANGE_TEXT).
KUTT_EARLIEST_MS = int(accepted_moments.EARLIEST.timestamp()) * 1000
KUTT_LATEST_MS = int(accepted_moments.LATEST.timestamp()) * 1000


def _kutt_expiry(value: Any) -> Any:
    """An expiry as the API takes it: Kutt writes an ISO time or, in older exports, milliseconds
    since 1970; ValueError for a number of milliseconds out of range (or NaN, or infinite)."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        if not KUTT_EARLIEST_MS <= value <= KUTT_LATEST_MS:  # NaN compares false
            raise ValueError(
                f"expire_in: {value} is not a time in milliseconds since 1970 {accepted_moments.RANGE_TEXT}"
            )
        return datetime.fromtimestamp(value / 1000, UTC).isoformat()
    return value


def _kutt(text: str) -> Iterator[Record]:
    for position, link in enumerate(_json_entries(text, "data", 'a Kutt export is {"data": [...]} or a list'), start=1):
        problems = []
        try:
            expires_at = _kutt_expiry(link.get("expire_in"))
        except ValueError as error:
            expires_at, problems = None, [str(error)]
        fields = {
            "url": link.get("target") or "",
            "slug": link.get("address") or "",
            "title": link.get("description") or "",
            "expires_at": expires_at or "",
        }
        yield Record(position, _given(fields), tuple(problems))


READERS = {
    "csv": _our_csv,
    "json": _our_json,
    "bitly": _bitly,
    "yourls": _yourls_csv,
    "shlink": _shlink,
    "kutt": _kutt,
}
