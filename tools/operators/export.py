r"""Export a key's links, or their daily clicks, through the API (GET /links/export).

    python -m tools.operators.export --local --key sl_... > links.json                 # every field, JSON
    python -m tools.operators.export --local --key sl_... --format csv -o links.csv
    python -m tools.operators.export --stack-name shortlink-prod --key sl_... --format stats-csv \
        --from 2026-11-01T00:00:00Z

A JSON export with --password-hashes (an admin key's) imports back unchanged (python -m
tools.operators.import_links links.json ...): passwords travel as their hashes. Without it, and in CSV, an export
shows only whether a link has a password.
"""

import argparse
import sys
from pathlib import Path
from urllib.parse import urlencode

from tools.operators.api_client import Api, add_api_arguments, refusal


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m tools.operators.export", description=__doc__.split("\n\n")[0])
    parser.add_argument("--format", default="json", choices=("json", "csv", "stats-csv"))
    parser.add_argument("--from", dest="start", help="stats-csv: from this time (ISO 8601 with a zone)")
    parser.add_argument("--to", dest="end", help="stats-csv: until this time (default: now)")
    parser.add_argument(
        "--password-hashes", action="store_true", help="json: the passwords as their hashes (an admin key only)"
    )
    parser.add_argument("-o", "--output", type=Path, help="write here instead of to standard output")
    add_api_arguments(parser)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    query = {
        "format": args.format,
        **({"from": args.start} if args.start else {}),
        **({"to": args.end} if args.end else {}),
        **({"include": "password_hash"} if args.password_hashes else {}),
    }
    answer = Api.of(args).request("GET", f"/links/export?{urlencode(query)}")
    if answer.status != 200:
        print(f"error: {refusal(answer)}", file=sys.stderr)
        return 1
    if args.output:
        args.output.write_bytes(answer.body)
    else:
        sys.stdout.buffer.write(answer.body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
