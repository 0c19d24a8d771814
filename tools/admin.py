"""Admin command: create, list and revoke API keys on any endpoint.

    python -m tools.admin --local keys create --name alice          # the `make dev` stack
    python -m tools.admin --stack-name shortlink-prod keys list      # a deployed stack
    python -m tools.admin --table MyKeysTable --endpoint-url URL keys revoke KEY_ID

Keys are shown once, at creation; only their SHA-256 hash is stored.
"""

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "layers" / "common"))

from botocore.exceptions import BotoCoreError  # noqa: E402
from pynamodb.exceptions import PynamoDBException  # noqa: E402

from shortlink.adapters.dynamodb import DynamoApiKeyStore  # noqa: E402
from shortlink.api_keys import generate_api_key, hash_api_key, key_id_for  # noqa: E402
from tools.aws_target import add_target_arguments, configure_endpoint, deployed_resource  # noqa: E402

KEYS_TABLE_ID = "ApiKeysTable"  # logical id in template.yaml, and the table's name in the local stack


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m tools.admin", description=__doc__.split("\n\n")[0])
    add_target_arguments(parser, "--table", "the API keys table, by name")
    commands = parser.add_subparsers(dest="resource", required=True)
    keys = commands.add_parser("keys", help="API keys").add_subparsers(dest="action", required=True)
    keys.add_parser("create", help="create a key and print it (once)").add_argument("--name", required=True)
    keys.add_parser("list", help="list keys (ids and names, never the keys)")
    keys.add_parser("revoke", help="revoke a key by id").add_argument("key_id")
    return parser.parse_args(argv)


def table_name(args: argparse.Namespace) -> str:
    if args.table:
        return str(args.table)
    if args.local:
        return KEYS_TABLE_ID
    return deployed_resource(args.stack_name, KEYS_TABLE_ID)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    configure_endpoint(args)
    try:
        return run(args, DynamoApiKeyStore(table_name(args)))
    except (PynamoDBException, BotoCoreError) as error:
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


if __name__ == "__main__":
    sys.exit(main())
