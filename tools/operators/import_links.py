"""Import links from a file into a key's links, through the API (POST /links/import).

    python -m tools.operators.import_links links.csv --local --key sl_...                 # the `make dev` stack
    python -m tools.operators.import_links bitly.csv --format bitly --stack-name shortlink-prod --key sl_...
    python -m tools.operators.import_links export.json --url https://sho.rt --key sl_...

Formats: csv (url, slug, title, tags, expires_at, ...), json (an export), bitly, yourls (SQL dump
or CSV), shlink, kutt; auto (the default) recognises each. Any size: the file is read here and
sent in parts of at most 500 links; links the key's create allowance refuses this minute are
sent again the next minute (--no-wait reports them instead). Re-running an import creates
nothing twice. Prints a table of each link and a summary; exits 1 if any link failed.
"""

import argparse
import json
import re
import sys
import time
from pathlib import Path

from shortlink.transfer.formats import FORMATS, Record, UnreadableFile, read
from shortlink.transfer.imports import MAX_IMPORT_BYTES, MAX_IMPORT_RECORDS
from tools.operators.api_client import Api, add_api_arguments, refusal

RETRY_AFTER = re.compile(r"retry after (\d+) s")


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m tools.operators.import_links", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("file", type=Path)
    parser.add_argument("--format", default="auto", choices=("auto", *FORMATS))
    parser.add_argument("--no-wait", action="store_true", help="report rate-limited links instead of waiting")
    add_api_arguments(parser)
    return parser.parse_args(argv)


Numbered = tuple[int, Record]  # a record and its place in the file


def parts(records: list[Numbered]) -> list[list[Numbered]]:
    """The records in parts the API takes: at most 500 and well under 1 MiB each."""
    found: list[list[Numbered]] = [[]]
    size = 0
    for numbered in records:
        length = len(json.dumps(numbered[1].fields).encode()) + 2
        if len(found[-1]) == MAX_IMPORT_RECORDS or size + length > MAX_IMPORT_BYTES - 1024:
            found.append([])
            size = 0
        found[-1].append(numbered)
        size += length
    return [part for part in found if part]


def send(api: Api, part: list[Numbered]) -> dict[int, dict[str, object]]:
    """The results of one part by place, each with the line of its record in the file."""
    body = json.dumps({"links": [record.fields for _, record in part]}).encode()
    answer = api.request("POST", "/links/import?format=json", body, "application/json")
    if answer.status != 200:
        raise SystemExit(f"error: the import was refused: {refusal(answer)}")
    results = answer.json()["results"]
    return {index: {**result, "line": record.line} for (index, record), result in zip(part, results, strict=True)}


def import_records(api: Api, records: list[Record], wait: bool) -> list[dict[str, object]]:
    """Each record's result, in the file's order (a dump may hold many records on one line)."""
    # A record the file itself makes invalid (a number in other digits, ...) fails here, unsent.
    results: dict[int, dict[str, object]] = {
        index: {
            "line": record.line,
            "status": "failed",
            "error": "invalid_request",
            "message": "; ".join(record.problems),
        }
        for index, record in enumerate(records)
        if record.problems
    }
    pending = [(index, record) for index, record in enumerate(records) if not record.problems]
    while pending:
        for part in parts(pending):
            results.update(send(api, part))
        pending = [(index, record) for index, record in pending if results[index].get("error") == "rate_limited"]
        if not pending or not wait:
            break
        waits = [RETRY_AFTER.search(str(results[index].get("message"))) for index, _ in pending]
        seconds = max((int(match[1]) for match in waits if match), default=60)
        print(f"{len(pending)} links wait for the next minute's allowance ({seconds} s)", file=sys.stderr)
        time.sleep(seconds)
    return [results[index] for index in range(len(records))]


def table(results: list[dict[str, object]]) -> str:
    rows = [("line", "status", "code", "reason")]
    rows += [
        (str(result["line"]), str(result["status"]), str(result.get("code") or ""), str(result.get("message") or ""))
        for result in results
    ]
    widths = [max(len(row[column]) for row in rows) for column in range(3)]
    lines = [
        "  ".join(cell.ljust(width) for cell, width in zip(row[:3], widths, strict=True)) + "  " + row[3]
        for row in rows
    ]
    return "\n".join(line.rstrip() for line in lines)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    api = Api.of(args)
    try:
        records = read(args.file.read_text(encoding="utf-8"), args.format)
    except (OSError, UnicodeDecodeError, UnreadableFile) as error:
        print(f"error: {args.file}: {error}", file=sys.stderr)
        return 2
    results = import_records(api, records, wait=not args.no_wait)
    print(table(results))
    counts = {
        status: sum(1 for result in results if result["status"] == status)
        for status in ("created", "skipped", "failed")
    }
    print(f"created {counts['created']}, skipped {counts['skipped']}, failed {counts['failed']}")
    return 1 if counts["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
