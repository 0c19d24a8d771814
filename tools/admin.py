"""Admin command: create, list and revoke API keys on any endpoint.

    python -m tools.admin --local keys create --name alice          # the `make dev` stack
    python -m tools.admin --stack-name shortlink-prod keys list      # a deployed stack
    python -m tools.admin --table MyKeysTable --endpoint-url URL keys revoke KEY_ID

Keys are shown once, at creation; only their SHA-256 hash is stored.
"""

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "layers" / "common"))

from shortlink.adapters.dynamodb import DynamoApiKeyStore  # noqa: E402
from shortlink.api_keys import generate_api_key, hash_api_key, key_id_for  # noqa: E402

LOCAL_TABLE = "ApiKeysTable"  # the local stack names tables after their logical ids
KEYS_OUTPUT = "ApiKeysTableName"


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m tools.admin", description=__doc__.split("\n\n")[0])
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--local", action="store_true", help="the local stack (make dev) on MOTO_PORT (5005)")
    where.add_argument("--stack-name", help="a deployed stack: its ApiKeysTableName output names the table")
    where.add_argument("--table", help="the API keys table, by name")
    parser.add_argument("--endpoint-url", help="a DynamoDB-compatible endpoint (default: AWS, or the local stack)")
    parser.add_argument("--region", help="AWS region (default: your AWS configuration)")
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
        return LOCAL_TABLE
    import boto3

    stack = boto3.client("cloudformation").describe_stacks(StackName=args.stack_name)["Stacks"][0]
    for output in stack.get("Outputs", []):
        if output["OutputKey"] == KEYS_OUTPUT:
            return str(output["OutputValue"])
    raise SystemExit(f"stack {args.stack_name} has no {KEYS_OUTPUT} output")


def configure_endpoint(args: argparse.Namespace) -> None:
    if args.region:
        os.environ["AWS_DEFAULT_REGION"] = args.region
    if args.local:
        os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
        os.environ.setdefault("AWS_ACCESS_KEY_ID", "local")
        os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "local")
        default = f"http://127.0.0.1:{os.environ.get('MOTO_PORT', '5005')}"
        os.environ["AWS_ENDPOINT_URL"] = args.endpoint_url or os.environ.get("AWS_ENDPOINT_URL", default)
    elif args.endpoint_url:
        os.environ["AWS_ENDPOINT_URL"] = args.endpoint_url


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    configure_endpoint(args)
    store = DynamoApiKeyStore(table_name(args))
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
