"""Admin command: create, list and revoke API keys on any endpoint; read the stack's orphan visits.

    python -m tools.operators.admin --local keys create --name alice          # the `make dev` stack
    python -m tools.operators.admin --local keys create --name board --scope links:read --scope stats:read \
        --expires 2027-01-01 --owner KEY_ID                           # a dashboard's key for KEY_ID's links
    python -m tools.operators.admin --stack-name shortlink-prod keys list      # a deployed stack
    python -m tools.operators.admin --table MyKeysTable --endpoint-url URL keys revoke KEY_ID
    python -m tools.operators.admin --local orphans --day 2026-11-30           # follows that found no live link
    python -m tools.operators.admin --stack-name shortlink-prod people invite --workspace KEY_ID \
        --email ana@example.com --role owner --console https://sho.rt  # a key-only account's first owner

Keys are shown once, at creation; only their SHA-256 hash is stored.
"""

import argparse
import sys
from datetime import UTC, date, datetime

from botocore.exceptions import BotoCoreError
from pynamodb.exceptions import PynamoDBException

from shortlink.access.api_keys import ALL_SCOPES, ApiKey, issue_api_key
from shortlink.adapters.dynamodb.api_key_store import DynamoApiKeyStore
from shortlink.adapters.dynamodb.click_stats_reader import DynamoClickStatsReader
from shortlink.adapters.dynamodb.memberships import DynamoInvitations
from shortlink.clicks.orphans import OUTCOMES, STACK_ORPHANS, outcome_counter, top_attempted
from shortlink.errors import InvalidApiKeyOption, ShortlinkError
from shortlink.people.errors import InvalidMemberOption
from shortlink.people.invitations import invite as people_invite
from shortlink.people.model import ROLES
from shortlink.people.roles import scopes_of
from tools.operators.aws_target import add_target_arguments, configure_endpoint, deployed_resource

# Logical ids in template.yaml, and the tables' names in the local stack.
KEYS_TABLE_ID, CLICK_STATS_TABLE_ID = "ApiKeysTable", "ClickStatsTable"


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m tools.operators.admin", description=__doc__.split("\n\n")[0])
    add_target_arguments(parser, "--table", "the table it reads, by name (keys: API keys; orphans: click stats)")
    commands = parser.add_subparsers(dest="resource", required=True)
    keys = commands.add_parser("keys", help="API keys").add_subparsers(dest="action", required=True)
    create = keys.add_parser("create", help="create a key and print it (once)")
    create.add_argument("--name", required=True)
    create.add_argument(
        "--scope",
        action="append",
        choices=sorted(ALL_SCOPES),
        dest="scopes",
        help="what the key may do (repeat it; default: all four)",
    )
    create.add_argument("--expires", type=moment, help="refused from then on: 2027-01-01 (00:00 UTC) or ISO 8601")
    create.add_argument("--owner", metavar="KEY_ID", help="work on the links of this key's account (default: its own)")
    keys.add_parser("list", help="list keys (ids, scopes, expiry, last use; never the keys)")
    keys.add_parser("revoke", help="revoke a key by id").add_argument("key_id")
    people = commands.add_parser("people", help="people of workspaces").add_subparsers(dest="action", required=True)
    invite = people.add_parser("invite", help="invite someone to a workspace and print the link (once)")
    invite.add_argument("--workspace", required=True, metavar="KEY_ID", help="the workspace of this key's account")
    invite.add_argument("--email", required=True)
    invite.add_argument("--role", required=True, choices=ROLES)
    invite.add_argument("--console", required=True, metavar="URL", help="where the console is: https://sho.rt")
    orphans = commands.add_parser("orphans", help="a UTC day's follows that found no live link, stack-wide")
    orphans.add_argument("--day", type=date.fromisoformat, help="YYYY-MM-DD (default: today, UTC)")
    return parser.parse_args(argv)


def moment(text: str) -> datetime:
    """An ISO 8601 date (00:00 UTC that day) or date-time (UTC when it names no zone)."""
    parsed = datetime.fromisoformat(text)
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


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
            return print_orphans(DynamoClickStatsReader(table_name(args)), args.day or datetime.now(UTC).date())
        if args.resource == "people":
            return invite(args, DynamoApiKeyStore(table_name(args)), DynamoInvitations(table_name(args)))
        return run(args, DynamoApiKeyStore(table_name(args)))
    except (PynamoDBException, BotoCoreError, ShortlinkError) as error:
        # Nothing answers, or the table is missing: a sentence, not a traceback.
        hint = " (is `make dev` running there? MOTO_PORT picks its port)" if args.local else ""
        print(f"error: {error}{hint}", file=sys.stderr)
        return 2


def run(args: argparse.Namespace, store: DynamoApiKeyStore) -> int:
    now = datetime.now(UTC)
    if args.action == "create":
        return create(args, store, now)
    if args.action == "list":
        for key in store.list_keys():
            print(described(key, now))
    elif args.action == "revoke":
        if not store.revoke(args.key_id):
            print(f"no key with id {args.key_id}", file=sys.stderr)
            return 1
        print(f"revoked {args.key_id}")
    return 0


def create(args: argparse.Namespace, store: DynamoApiKeyStore, now: datetime) -> int:
    owner = ""
    if args.owner:
        account = next((key.owner for key in store.list_keys() if key.key_id == args.owner), None)
        if account is None:
            print(f"no key with id {args.owner}", file=sys.stderr)
            return 1
        owner = account
    scopes = frozenset(args.scopes or ALL_SCOPES)
    try:
        key, plaintext = issue_api_key(store, args.name, scopes, args.expires, now, owner)
    except InvalidApiKeyOption as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(f"created key {key.key_id} ({key.name}); store it now, it is not shown again:\n{plaintext}")
    return 0


def invite(args: argparse.Namespace, keys: DynamoApiKeyStore, invitations: DynamoInvitations) -> int:
    """An invitation to a key's account, made by the operator: the root of trust for people, as
    `keys create` is for keys (a key-only account's first owner comes this way)."""
    workspace = next((key.owner for key in keys.list_keys() if key.key_id == args.workspace), None)
    if workspace is None:
        print(f"no key with id {args.workspace}", file=sys.stderr)
        return 1
    try:
        made, token = people_invite(
            invitations, scopes_of("owner"), "the operator", workspace, args.email, args.role, datetime.now(UTC)
        )
    except InvalidMemberOption as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    link = f"{args.console.rstrip('/')}/console/invitations/{token}"
    print(f"invited {made.email} as {made.role} to workspace {workspace} until {made.expires_at:%Y-%m-%d %H:%M} UTC;")
    print(f"send them this link (it works once, and is not shown again):\n{link}")
    return 0


def described(key: ApiKey, now: datetime) -> str:
    """One line of `keys list`: id, state, created, last used, expiry, scopes, account, name."""
    expires = f"{key.expires_at:%Y-%m-%dT%H:%MZ}" if key.expires_at else "never"
    used = key.last_used_on.isoformat() if key.last_used_on else "never"
    account = "own" if key.owner == key.key_id else key.owner
    scopes = ",".join(sorted(key.scopes))
    return (
        f"{key.key_id}  {key.state(now):8} {key.created_at:%Y-%m-%d %H:%M}  used {used:10}  expires {expires:17}"
        f"  {scopes:40}  account {account:12}  {key.name}"
    )


def print_orphans(store: DynamoClickStatsReader, day: date) -> int:
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
