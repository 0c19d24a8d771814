"""`make cost`'s click lake (docs/click-lake.md): what a million clicks cost in the lake, and what
each named query costs over a month of 10 million clicks.

Measured here, not assumed: a realistic month's rows (generated as ingest makes them, at the pace
of 10 million clicks a month) are packed into records as ingest packs them, which gives the bytes
Firehose bills (each record rounded up to 5 KB), and written as Parquet in objects of one buffer
interval's rows (300 s), which gives the bytes stored and, per column, the bytes each query scans
(Athena reads only the columns a query names, of the days it names). List prices, us-east-1,
no free tier: recheck before relying on them. Not priced: Firehose's JQ processing hours (the
partition key's extraction; AWS bills them by the hour of processing, which we cannot measure
here), CloudWatch metrics of the workgroup, and requests to the Glue Data Catalog (the first
million a month are free; Firehose caches the schema, Athena projects the partitions).

    python -m tools.developers.cost.lake      # the tables, and docs/click-lake.md's figures
"""

import random
import re
import string
import sys
import tempfile
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import duckdb

from shortlink.clicks.events import ClickEvent
from shortlink.clicks.lake_rows import COLUMNS, lake_records, lake_row
from tools.developers.cost.prices import Line
from tools.operators.click_lake.parquet import parquet_bytes
from tools.operators.click_lake.queries import NAMED_QUERIES

TARGET_PER_MILLION_CLICKS = 0.05
LAKE_PRICES = {
    "firehose_ingested_gb": 0.029,  # Direct PUT, first 500 TB a month, each record rounded up to 5 KB
    "firehose_conversion_gb": 0.018,  # record format conversion to Parquet
    "firehose_partitioning_gb": 0.020,  # dynamic partitioning
    "firehose_partitioning_object": 0.005 / 1000,  # per S3 object delivered by dynamic partitioning
    "s3_put": 0.005 / 1000,
    "s3_storage_gb_month": 0.023,  # S3 Standard, first 50 TB
    "athena_scanned_tb": 5.0,
}
RECORD_ROUNDING = 5 * 1024
MONTHLY_CLICKS = 10_000_000
BUFFER_SECONDS = 300  # click-lake.yaml's BufferSeconds default
ATHENA_MINIMUM_BYTES = 10 * 1024 * 1024  # Athena bills at least 10 MB a query
RETENTION_MONTHS = 400 / 30.4  # ClickLakeRetentionDays' default
PAGE = Path(__file__).resolve().parents[3] / "docs" / "click-lake.md"
FIGURES = re.compile(r"(<!-- lake-cost:start -->\n).*?(<!-- lake-cost:end -->)", re.DOTALL)


def sample_rows(count: int, rng: random.Random) -> list[dict[str, object]]:
    """Rows of one buffer interval at 10 M clicks a month: a few hundred links (a few of them hot),
    browsers' and countries' mixes, visitors' hashes and click ids as random as real ones."""
    links = ["".join(rng.choices(string.ascii_letters + string.digits, k=7)) for _ in range(500)]
    start = datetime(2026, 11, 30, 14, tzinfo=UTC)
    rows = []
    for n in range(count):
        click = ClickEvent(
            rng.randbytes(16).hex(),
            rng.choice(links[:5]) if rng.random() < 0.5 else rng.choice(links),
            start + timedelta(seconds=BUFFER_SECONDS * n / count),
            country=rng.choice(["US", "DE", "BR", "IN", "GB", "FR", "JP", "XX"]),
            device=rng.choice(["mobile", "desktop", "tablet", "bot"]),
            browser=rng.choice(["Chrome", "Safari", "Firefox", "Edge", "Samsung Internet"]),
            os=rng.choice(["Android", "iOS", "Windows", "macOS", "Linux"]),
            referrer=rng.choice(["(direct)", "t.co", "www.google.com", "l.facebook.com", "news.ycombinator.com"]),
            language=rng.choice(["en", "de", "pt", "fr", "ja"]),
            campaign=rng.choice(["(none)", "summer-sale", "launch", "newsletter-48"]),
            agent="crawler" if rng.random() < 0.15 else "person",
            repeat=rng.random() < 0.05,
            visitor=rng.randbytes(16).hex(),
            owner="k" + rng.choice("abcdefgh") * 11,
            tags=tuple(rng.sample(["promo", "email", "social", "q4"], rng.randrange(3))),
        )
        rows.append(lake_row(click, "us-east-1", "2+crawler-user-agents-1.67.0+crawlerdetect-0.4.2"))
    return rows


def column_bytes(parquet: bytes) -> dict[str, int]:
    """Each column's compressed bytes in one Parquet file."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "rows.parquet"
        path.write_bytes(parquet)
        metadata = f"parquet_metadata('{path}')"  # our own temporary file
        sizes = f"SELECT path_in_schema, sum(total_compressed_size) FROM {metadata} GROUP BY 1"  # noqa: S608
        found = duckdb.sql(sizes).fetchall()
    return {str(name).split(",")[0]: int(size) for name, size in found}


def lake_lines(rows: list[dict[str, object]]) -> tuple[list[Line], dict[str, int], int]:
    """Per click: the lines of the lake; the Parquet bytes per column and in all of the sample's object."""
    records = lake_records(rows)
    billed = sum(-(-len(record) // RECORD_ROUNDING) * RECORD_ROUNDING for record in records) / len(rows)
    ingested = sum(len(record) for record in records) / len(rows)
    parquet = parquet_bytes(rows)
    objects_per_click = 1 / len(rows)  # one object per day partition per buffer interval
    lines = [
        Line(
            "Firehose ingestion (records rounded up to 5 KB)", billed / 1e9, "GB", LAKE_PRICES["firehose_ingested_gb"]
        ),
        Line("Firehose format conversion to Parquet", billed / 1e9, "GB", LAKE_PRICES["firehose_conversion_gb"]),
        Line("Firehose dynamic partitioning (by day)", ingested / 1e9, "GB", LAKE_PRICES["firehose_partitioning_gb"]),
        Line("Firehose objects delivered", objects_per_click, "object", LAKE_PRICES["firehose_partitioning_object"]),
        Line("S3 PUT of the objects", objects_per_click, "request", LAKE_PRICES["s3_put"]),
        Line("S3 storage, a month", len(parquet) / len(rows) / 1e9, "GB-month", LAKE_PRICES["s3_storage_gb_month"]),
    ]
    return lines, column_bytes(parquet), len(parquet)


def query_prices(columns: dict[str, int], rows: int) -> dict[str, tuple[float, float]]:
    """Each named query over a month of MONTHLY_CLICKS: (bytes scanned, $)."""
    names = {name for name, _ in COLUMNS}
    prices = {}
    for query in NAMED_QUERIES:
        read = names & set(re.findall(r"[a-z_]+", query.sql))
        scanned = max(sum(columns.get(name, 0) for name in read) / rows * MONTHLY_CLICKS, ATHENA_MINIMUM_BYTES)
        prices[query.name] = (scanned, scanned / 1e12 * LAKE_PRICES["athena_scanned_tb"])
    return prices


def report(write: Callable[[str], None]) -> tuple[str, float]:
    """Print the lake's tables; their Markdown for docs/click-lake.md, and the total per million clicks."""
    rows = sample_rows(round(MONTHLY_CLICKS / (30 * 86_400) * BUFFER_SECONDS), random.Random(36))  # noqa: S311 (a sample)
    lines, columns, parquet = lake_lines(rows)
    per_million = sum(line.cost_per_million for line in lines)
    storage = next(line for line in lines if line.item.startswith("S3 storage")).cost_per_million
    verdict = "met" if per_million <= TARGET_PER_MILLION_CLICKS else "NOT met"
    markdown = [
        "| item | per click | unit | unit price $ | $ per million clicks |",
        "| --- | ---: | --- | ---: | ---: |",
    ]
    write("\nThe click lake, per million clicks")
    for line in lines:
        price = f"{line.unit_price:>9.5g} {line.cost_per_million:>7.4f}"
        write(f"  {line.item:<46} {line.quantity:>11.5g} {line.unit:<9} {price}")
    write(
        f"  total ${per_million:.4f} (target ≤ ${TARGET_PER_MILLION_CLICKS:.2f}: {verdict}); kept "
        f"{RETENTION_MONTHS:.1f} months, the storage comes to ${storage * RETENTION_MONTHS:.4f} in all"
    )
    markdown.append(f"| **total** | | | | **{per_million:.4f}** |")
    markdown.append(
        f"\nMeasured on {len(rows):,} rows (one buffer interval at 10 million clicks a month): "
        f"{parquet / len(rows):.1f} bytes of Parquet per row. Kept {RETENTION_MONTHS:.1f} months (the default "
        f"retention), a million clicks' storage comes to ${storage * RETENTION_MONTHS:.4f} in all.\n"
    )
    markdown += ["| named query | scanned over a month of 10 M clicks | $ per run |", "| --- | ---: | ---: |"]
    write("\nEach named query over a month of 10 million clicks (Athena, $5 per TB, 10 MB at least)")
    for name, (scanned, cost) in query_prices(columns, len(rows)).items():
        write(f"  {name:<22} {scanned / 1e6:>9.1f} MB  ${cost:.5f}")
        markdown.append(f"| {name} | {scanned / 1e6:.1f} MB | {cost:.5f} |")
    return "\n".join(markdown) + "\n", per_million


def write_figures(page: Path, figures: str) -> None:
    """Put the figures between the page's lake-cost markers."""
    text = page.read_text()
    if not FIGURES.search(text):
        raise SystemExit(f"{page.name} has no lake-cost markers")
    page.write_text(FIGURES.sub(lambda found: found.group(1) + figures + found.group(2), text))
    print(f"wrote docs/{page.name}", file=sys.stderr)


if __name__ == "__main__":
    write_figures(PAGE, report(print)[0])
