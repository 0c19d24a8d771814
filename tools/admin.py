"""Admin command: create, list and revoke API keys on any endpoint; read the stack's orphan visits.

    python -m tools.admin --local keys create --name alice          # the `make dev` stack
    python -m tools.admin --stack-name shortlink-prod keys list      # a deployed stack
    python -m tools.admin --table MyKeysTable --endpoint-url URL keys revoke KEY_ID
    python -m tools.admin --local orphans --day 2026-11-30           # follows that found no live link

Keys are shown once, at creation; only their SHA-256 hash is stored.
"""

import argparse
import sys
from datetime import UTC, date, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "layers" / "common"))

from botocore.exceptions import BotoCoreError  # noqa: E402
from pynamodb.exceptions import PynamoDBException  # noqa: E402

from shortlink.adapters.dynamodb import DynamoApiKeyStore  # noqa: E402
from shortlink.adapters.dynamodb_click_stats import DynamoClickStats  # noqa: E402
from shortlink.api_keys import generate_api_key, hash_api_key, key_id_for  # noqa: E402
from shortlink.errors import StorageUnavailable  # noqa: E402
from shortlink.orphan_tally import OUTCOMES, STACK_ORPHANS, outcome_counter, top_attempted  # noqa: E402
from tools.aws_target import add_target_arguments, configure_endpoint, deployed_resource  # noqa: E402

# Logical ids in template.yaml, and the tables' names in the local stack.
KEYS_TABLE_ID, CLICK_STATS_TABLE_ID = "ApiKeysTable", "ClickStatsTable"


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m tools.admin", description=__doc__.split("\n\n")[0])
    add_target_arguments(parser, "--table", "the table it reads, by name (keys: API keys; orphans: click stats)")
    commands = parser.add_subparsers(dest="resource", required=True)
    keys = commands.add_parser("keys", help="API keys").add_subparsers(dest="action", required=True)
    keys.add_parser("create", help="create a key and print it (once)").add_argument("--name", required=True)
    keys.add_parser("list", help="list keys (ids and names, never the keys)")
    keys.add_parser("revoke", help="revoke a key by id").add_argument("key_id")
    orphans = commands.add_parser("orphans", help="a UTC day's follows that found no live link, stack-wide")
    orphans.add_argument("--day", type=date.fromisoformat, help="YYYY-MM-DD (default: today, UTC)")
    return parser.parse_args(argv)


def table_name(args: argparse.Namespace) -> str:
    logical_id = CLICK_STATS_TABLE_ID if args.resource == "orphans" else KEYS_TABLE_ID
    if args.table:
        return str(args.table)
    if args.local:
        return logical_id
    return deployed_resource(args.stack_name, logical_id)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    configure_endpoint(args)
    try:
        if args.resource == "orphans":
            return print_orphans(DynamoClickStats(table_name(args)), args.day or datetime.now(UTC).date())
        return run(args, DynamoApiKeyStore(table_name(args)))
    except (PynamoDBException, BotoCoreError, StorageUnavailable) as error:
        # Nothing answers, or the table is missing: a sentence, not a traceback.
        hint = " (is `make dev` running there? MOTO_PORT picks its port)" if args.local else ""
        print(f"error: {error}{hint}", file=sys.stderr)
        return 2


def run(args: argparse.Namespace, store: DynamoApiKeyStore) -> int:
    if args.action == "create":
        plaintext = generate_api_key()
        key_hash = hash_api_key(plaintext)
        key = store.add(key_hash, key_id_for(key_hash), args.name)
        print(f"created key {key.key_id} ({key.name}); store it now, it is not shown again:\n{plaintext}")
    elif args.action == "list":
        for key in store.list_keys():
            state = "revoked" if key.revoked else "active"
            print(f"{key.key_id}  {state:8} {key.created_at:%Y-%m-%d %H:%M}  {key.name}")
    elif args.action == "revoke":
        if not store.revoke(args.key_id):
            print(f"no key with id {args.key_id}", file=sys.stderr)
            return 1
        print(f"revoked {args.key_id}")
    return 0


def print_orphans(store: DynamoClickStats, day: date) -> int:
    """The day's orphan visits per outcome, then its most-attempted unknown codes."""
    days = store.days(STACK_ORPHANS, day.isoformat(), day.isoformat())
    counters = days[0].counters if days else None
    if counters is None:
        print(f"{day}: no orphan visits")
        return 0
    outcomes = "  ".join(f"{outcome} {counters[outcome_counter(outcome)]}" for outcome in OUTCOMES)
    print(f"{day}: {outcomes}")
    for code, visits in top_attempted(counters):
        print(f"{visits:>10}  {code}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
