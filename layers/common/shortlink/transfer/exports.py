"""Exports: all of a key's links, every field, as JSON (which imports back unchanged when it
carries the passwords as their hashes, which only an admin key may ask for) or CSV (the password
only as has_password), and their daily clicks as CSV. Each link
is shown as the API shows it (`view_of`: its domain's short URL, its domain), so an export of a
link on another short domain than the default imports back to that domain."""

import csv
import io
import json
from collections.abc import Callable
from typing import Any

from shortlink.clicks.day_counts import DayCounts
from shortlink.clicks.stats import BOT_COLUMNS, StatsRange, link_report, span_days, spreadsheet_cell
from shortlink.errors import ShortlinkError
from shortlink.links.model import Link
from shortlink.links.ports import LinkRepository
from shortlink.schemas.links import LinkView

# What one response carries (Lambda answers at most 6 MB); the stats read one query per link.
MAX_EXPORT_LINKS = 5000
MAX_STATS_EXPORT_LINKS = 1000
PAGE = 100
CSV_COLUMNS = (
    "code",
    "short_url",
    "url",
    "created_at",
    "valid_from",
    "expires_at",
    "redirect_type",
    "tags",
    "title",
    "private",
    "deleted_at",
    "max_clicks",
    "has_password",
    "rules",
    "domain",
)
# Columns added later come last, so a reader of the earlier ones finds them where they were.
STATS_COLUMNS = ("code", "day", "clicks", "bots", "unique_visitors", "domain", "repeat_clicks", "people", *BOT_COLUMNS)
# How the API shows a link (shortlink.api.link_presentation.link_view).
ViewOf = Callable[[Link], LinkView]


class ExportTooLarge(ShortlinkError):
    """More links than one export answers; the message names the limit."""


def owned_links(links: LinkRepository, owner: str, limit: int) -> list[Link]:
    """All of `owner`'s links, newest first, read a page at a time; ExportTooLarge past `limit`."""
    found: list[Link] = []
    cursor = None
    while True:
        page, cursor = links.list_for_owner(owner, PAGE, cursor, None)
        found.extend(page)
        if len(found) > limit:
            raise ExportTooLarge(f"an export holds at most {limit} links")
        if cursor is None:
            return found


def exported(link: Link, view_of: ViewOf, with_hashes: bool) -> dict[str, Any]:
    """A link as the JSON export writes it: its view, and the password as its hash only when
    asked for (`with_hashes`: an offline guess at a hash bypasses the unlock limit)."""
    view = view_of(link).model_dump(mode="json")
    if with_hashes:
        del view["has_password"]
        view["password_hash"] = link.password_hash
    return view


def links_json(links: list[Link], view_of: ViewOf, with_hashes: bool = False) -> str:
    return json.dumps({"links": [exported(link, view_of, with_hashes) for link in links]}, ensure_ascii=False)


def csv_cell(value: Any) -> Any:
    """A cell of the links CSV: empty for none, text made safe to open in a spreadsheet (titles
    and tags are anyone's words, also an import's)."""
    if value is None:
        return ""
    return spreadsheet_cell(value) if isinstance(value, str) else value


def links_csv(links: list[Link], view_of: ViewOf) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, CSV_COLUMNS)
    writer.writeheader()
    for link in links:
        row = view_of(link).model_dump(mode="json")
        row["tags"] = "|".join(row["tags"])
        row["rules"] = json.dumps(row["rules"], sort_keys=True) if row["rules"] is not None else ""
        row["private"] = str(row["private"]).lower()
        row["has_password"] = str(row["has_password"]).lower()
        writer.writerow({column: csv_cell(row[column]) for column in CSV_COLUMNS})
    return out.getvalue()


def stats_csv(
    links: list[Link], span: StatsRange, days_of: Callable[[str, str, str], list[DayCounts]], view_of: ViewOf
) -> str:
    """One row per link and UTC day with clicks in `span` (`days_of(key, first_day, last_day)`
    reads a link's days)."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(STATS_COLUMNS)
    first_day, last_day = span_days(span)
    for link in links:
        report = link_report(link.code, days_of(link.key, first_day, last_day), span)
        domain = view_of(link).domain or ""
        for point in report["series"]:
            if point["clicks"]:
                day = point["start"][:10]
                row = (link.code, day, point["clicks"], point["bots"], point["unique_visitors"], domain)
                agents = (point["agents"][agent] for agent in BOT_COLUMNS)
                writer.writerow((*row, point["repeat_clicks"], point["people"], *agents))
    return out.getvalue()
