"""The click lake's named queries: the SQL Athena runs (click-lake.yaml's AWS::Athena::NamedQuery
resources hold the same text, a test checks it) and DuckDB runs locally over the same Parquet.

Every query takes the first and last UTC day as its two parameters (`?`, 'YYYY-MM-DD'), reads only
those days' partitions, and counts each click id once: Firehose may store a row twice.
"""

from dataclasses import dataclass

from shortlink.clicks.lake_reconciliation import CLICKS_PER_LINK_DAY_SQL

TABLE = "clicks"


@dataclass(frozen=True)
class NamedQuery:
    name: str
    description: str
    sql: str


NAMED_QUERIES = (
    NamedQuery(
        "top-links",
        "The most clicked links of a range of days (each click once, bots included as the counters count them).",
        "SELECT link, count(DISTINCT click_id) AS clicks FROM clicks WHERE day BETWEEN ? AND ? "
        "GROUP BY link ORDER BY clicks DESC, link LIMIT 100",
    ),
    NamedQuery(
        "clicks-by-hour",
        "Clicks per UTC hour of a range of days.",
        "SELECT date_trunc('hour', clicked_at) AS hour, count(DISTINCT click_id) AS clicks FROM clicks "
        "WHERE day BETWEEN ? AND ? GROUP BY 1 ORDER BY 1",
    ),
    NamedQuery(
        "clicks-by-country",
        "Clicks per country of a range of days.",
        "SELECT country, count(DISTINCT click_id) AS clicks FROM clicks WHERE day BETWEEN ? AND ? "
        "GROUP BY country ORDER BY clicks DESC, country",
    ),
    NamedQuery(
        "campaign-by-device",
        "Clicks per utm_campaign and device of a range of days.",
        "SELECT utm_campaign, device, count(DISTINCT click_id) AS clicks FROM clicks WHERE day BETWEEN ? AND ? "
        "GROUP BY utm_campaign, device ORDER BY clicks DESC, utm_campaign, device",
    ),
    NamedQuery(
        "people-by-link",
        "Clicks per link of a range of days, bots and repeats excluded.",
        "SELECT link, count(DISTINCT click_id) AS clicks FROM clicks WHERE day BETWEEN ? AND ? "
        "AND NOT bot AND NOT repeat_click GROUP BY link ORDER BY clicks DESC, link",
    ),
    NamedQuery(
        "clicks-by-agent",
        "Clicks per agent class (person, crawler, previewer, scanner, ...) and day of a range of days.",
        "SELECT agent, day, count(DISTINCT click_id) AS clicks FROM clicks WHERE day BETWEEN ? AND ? "
        "GROUP BY agent, day ORDER BY day, agent",
    ),
    NamedQuery(
        "clicks-per-link-day",
        "Clicks per link and day: what the reconciliation compares with the counters.",
        CLICKS_PER_LINK_DAY_SQL,  # the scheduled check runs it too (functions/click_lake_check)
    ),
)
QUERIES = {query.name: query for query in NAMED_QUERIES}
RECONCILIATION = QUERIES["clicks-per-link-day"]
