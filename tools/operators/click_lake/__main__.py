"""The click lake from the command line: its named queries, the reconciliation with the counters,
and the erasure of a link's rows (docs/click-lake.md).

    python -m tools.operators.click_lake query top-links --local                  # the last 7 days
    python -m tools.operators.click_lake query clicks-by-country --local --from 2026-12-01 --to 2026-12-06
    python -m tools.operators.click_lake reconcile --stack-name shortlink-prod --from 2026-12-01
    python -m tools.operators.click_lake erase go.example/summer --stack-name shortlink-prod --from 2026-01-01
    python -m tools.operators.click_lake export KEY_ID --local --format ndjson > clicks.ndjson

Each reads the Parquet objects of the chosen days (copied to a temporary folder) with DuckDB, the
local stack's (CLICK_LAKE=1 make dev) or a deployed stack's; deployed, the same named queries run
in Athena's workgroup too. `reconcile` exits 1 when the lake and the counters differ.
"""

import argparse
import re
import sys
import tempfile
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

from shortlink.clicks.lake_reconciliation import differences
from shortlink.links.model import logged_key
from tools.operators.aws_target import add_target_arguments, configure_endpoint, deployed_resource
from tools.operators.click_lake.counters import counted_link_days
from tools.operators.click_lake.erasure import erase_link
from tools.operators.click_lake.export import FORMATS, export_rows
from tools.operators.click_lake.parquet import lake_connection
from tools.operators.click_lake.queries import QUERIES, RECONCILIATION
from tools.operators.click_lake.store import LOCAL_BUCKET, LakeBucket, days_between

CLICK_STATS_TABLE = "ClickStatsTable"
LAKE_STACK, LAKE_BUCKET_OUTPUT = "ClickLake", "BucketName"
DEFAULT_DAYS = 7
DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", re.ASCII)


def iso_day(text: str) -> str:
    """A day as the lake's partitions name it; argparse reports anything else."""
    if not DAY.fullmatch(text):
        raise argparse.ArgumentTypeError(f"not a day as YYYY-MM-DD: {text!r}")
    try:
        return date.fromisoformat(text).isoformat()
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a day: {text!r}") from None


def parse_arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m tools.operators.click_lake", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    query = commands.add_parser("query", help="run a named query")
    query.add_argument("name", choices=sorted(QUERIES))
    reconcile = commands.add_parser("reconcile", help="compare the lake's clicks per link and day with the counters'")
    reconcile.add_argument("--click-stats-table", help="with --bucket: the counters' table")
    erase = commands.add_parser("erase", help="remove one link's rows")
    erase.add_argument("link", help="the link's key: its code, or host/code on another domain than the default")
    export = commands.add_parser("export", help="write one account's rows (CSV or NDJSON) to standard output")
    export.add_argument("owner", help="the account: its API key's id, as the rows' owner column holds it")
    export.add_argument("--format", dest="form", choices=FORMATS, default="csv")
    today = datetime.now(UTC).date()
    for command in (query, reconcile, erase, export):
        add_target_arguments(command, "--bucket", "the lake's bucket")
        first = (today - timedelta(days=DEFAULT_DAYS - 1)).isoformat()
        command.add_argument("--from", dest="first", type=iso_day, default=first, help="first UTC day, YYYY-MM-DD")
        command.add_argument("--to", dest="last", type=iso_day, default=today.isoformat(), help="last UTC day")
    return parser.parse_args(argv)


def lake_bucket(args: argparse.Namespace) -> LakeBucket:
    import boto3
    from botocore.config import Config

    if args.local:
        from tools.operators.aws_target import embedded_moto_url

        endpoint = args.endpoint_url or embedded_moto_url()
        path_style = Config(s3={"addressing_style": "path"})
        return LakeBucket(boto3.client("s3", endpoint_url=endpoint, config=path_style), LOCAL_BUCKET)
    s3 = boto3.client("s3")
    if args.bucket:
        return LakeBucket(s3, args.bucket)
    lake_stack = deployed_resource(args.stack_name, LAKE_STACK)
    outputs = boto3.client("cloudformation").describe_stacks(StackName=lake_stack)["Stacks"][0]["Outputs"]
    bucket = next(output["OutputValue"] for output in outputs if output["OutputKey"] == LAKE_BUCKET_OUTPUT)
    return LakeBucket(s3, bucket)


def stats_table(args: argparse.Namespace) -> str:
    if args.local:
        return CLICK_STATS_TABLE
    if args.bucket:
        if not args.click_stats_table:
            raise SystemExit("--bucket needs --click-stats-table (the counters to compare with)")
        return str(args.click_stats_table)
    return deployed_resource(args.stack_name, CLICK_STATS_TABLE)


def run(args: argparse.Namespace, folder: Path, dynamodb: Any = None) -> int:
    days_between(args.first, args.last)  # a clear error for a range that is not one
    lake = lake_bucket(args)
    if args.command == "erase":
        removed = erase_link(lake, logged_key(args.link), args.first, args.last, folder)
        print(f"{removed} rows of {args.link} erased from {args.first} to {args.last}")
        return 0
    database = lake_connection(lake.download(args.first, args.last, folder))
    if args.command == "export":
        written = export_rows(database, args.owner, args.first, args.last, args.form, sys.stdout)
        print(f"{written} rows of {args.owner} from {args.first} to {args.last}", file=sys.stderr)
        return 0
    if args.command == "query":
        answer = database.execute(QUERIES[args.name].sql, [args.first, args.last])
        print("\t".join(column[0] for column in answer.description))
        for row in answer.fetchall():
            print("\t".join(str(value) for value in row))
        return 0
    rows = database.execute(RECONCILIATION.sql, [args.first, args.last]).fetchall()
    lake_counts = {(link, day): clicks for link, day, clicks in rows}
    if dynamodb is None:
        import boto3

        dynamodb = boto3.client("dynamodb")
    found = differences(lake_counts, counted_link_days(dynamodb, stats_table(args), args.first, args.last))
    for difference in found:
        print(f"{difference.day}\t{difference.link}\tlake {difference.lake}\tcounters {difference.counters}")
    print(f"{len(found)} link-days differ from {args.first} to {args.last}", file=sys.stderr)
    return 1 if found else 0


def main(argv: list[str] | None = None) -> int:
    args = parse_arguments(argv)
    configure_endpoint(args)
    with tempfile.TemporaryDirectory() as folder:
        return run(args, Path(folder))


if __name__ == "__main__":
    sys.exit(main())
