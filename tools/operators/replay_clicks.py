"""Replay clicks that the redirect could not queue (logged as `click_not_queued` lines).

    # from a deployed stack's logs
    aws logs filter-log-events --log-group-name /aws/lambda/<RedirectFunction name> \\
        --filter-pattern '"click_not_queued"' --query 'events[].message' --output text \\
      | python -m tools.operators.replay_clicks --stack-name shortlink-prod
    # from a saved log file, against the local stack
    python -m tools.operators.replay_clicks --local < redirect.log

Each line names the pack its click or orphan visit was in; the lines of a pack are put back on
the clicks queue as that same pack, so ingest counts it once even if the first send did arrive
after all. Replay whole logs: a pack replayed with some of its lines missing counts only those.
"""

import argparse
import json
import sys
from collections.abc import Iterable, Iterator
from typing import Any

from shortlink.clicks.events import ClickEvent, ClickPack, OrphanVisit
from shortlink.redirect.lost_clicks import LOST_CLICK_EVENT
from tools.operators.aws_target import add_target_arguments, configure_endpoint, deployed_resource

QUEUE_ID = "ClicksQueue"  # logical id in template.yaml, and the queue's name in the local stack


def lost_records(lines: Iterable[str]) -> Iterator[dict[str, Any]]:
    """The marker records in the lines, wherever the log prefix puts the JSON."""
    decoder = json.JSONDecoder()
    for line in lines:
        if LOST_CLICK_EVENT not in line:
            continue
        start = line.find("{")
        while start != -1:
            try:
                record, _ = decoder.raw_decode(line, start)
            except ValueError:
                record = None
            if isinstance(record, dict) and record.get("event") == LOST_CLICK_EVENT:
                yield record
                break
            start = line.find("{", start + 1)


def unreplayable(lines: Iterable[str]) -> int:
    """How many lost clicks and orphan visits the lines name without their code (a private
    link's code is never logged): those cannot be put back."""
    return sum(1 for record in lost_records(lines) if "unreplayable" in record)


def lost_packs(lines: Iterable[str]) -> list[ClickPack]:
    """The packs the lines describe, in the order their first line came. A line written before
    packs existed holds one click, which is its own pack (as ingest reads such a message)."""
    clicks: dict[str, list[ClickEvent]] = {}
    orphans: dict[str, list[OrphanVisit]] = {}
    for record in lost_records(lines):
        if "unreplayable" in record:
            continue
        click = ClickEvent.from_json(json.dumps(record["click"])) if "click" in record else None
        pack_id = str(record.get("pack") or (click.click_id if click else ""))
        clicks.setdefault(pack_id, [])
        orphans.setdefault(pack_id, [])
        if click is not None:
            clicks[pack_id].append(click)
        else:
            orphans[pack_id].append(OrphanVisit.from_dict(record["orphan"]))
    return [ClickPack(pack_id, tuple(clicks[pack_id]), tuple(orphans[pack_id])) for pack_id in clicks]


def queue_url(args: argparse.Namespace, sqs: Any) -> str:
    if args.queue_url:
        return str(args.queue_url)
    if args.local:
        return str(sqs.get_queue_url(QueueName=QUEUE_ID)["QueueUrl"])
    return deployed_resource(args.stack_name, QUEUE_ID)


def main(argv: list[str] | None = None, lines: Iterable[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tools.operators.replay_clicks", description=__doc__.split("\n\n")[0]
    )
    add_target_arguments(parser, "--queue-url", "the clicks queue, by URL")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    configure_endpoint(args)
    import boto3

    sqs = boto3.client("sqs")
    url = queue_url(args, sqs)
    read = list(sys.stdin if lines is None else lines)
    packs = lost_packs(read)
    for pack in packs:
        sqs.send_message(QueueUrl=url, MessageBody=pack.to_json())
    clicks = sum(len(pack.clicks) for pack in packs)
    print(f"replayed {clicks} click(s) in {len(packs)} pack(s) to {url}")
    skipped = unreplayable(read)
    if skipped:
        print(
            f"{skipped} lost click(s) or orphan visit(s) of private links were logged without their code: not replayed"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
