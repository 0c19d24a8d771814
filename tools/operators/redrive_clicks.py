"""Move clicks from the dead-letter queue back to the clicks queue, to be counted again.

    python -m tools.operators.redrive_clicks --stack-name shortlink-prod     # a deployed stack
    python -m tools.operators.redrive_clicks --local                         # the local stack (make dev)

A message (a pack of clicks) lands in the dead-letter queue after ingest failed it five times (a
malformed message, or a store that kept refusing). Fix the cause, then redrive: each message is
sent to the clicks queue as it is, its pack id with it, and only then deleted from the dead-letter
queue, so a crash midway duplicates, never loses, and ingest counts a pack once however often it
arrives. Bounded: at most --max-messages (10,000) per run.
"""

import argparse
import sys
from typing import Any

from shortlink.numbers import NotAWholeNumber, whole_number
from tools.operators.aws_target import add_target_arguments, configure_endpoint, deployed_resource

QUEUE_ID = "ClicksQueue"
DEAD_LETTER_QUEUE_ID = "ClicksDeadLetterQueue"


def queue_urls(args: argparse.Namespace, sqs: Any) -> tuple[str, str]:
    """(dead-letter queue, clicks queue)."""
    if args.dead_letter_queue_url:
        if not args.queue_url:
            raise SystemExit("--dead-letter-queue-url needs --queue-url (where the clicks go)")
        return str(args.dead_letter_queue_url), str(args.queue_url)
    if args.local:
        urls = [str(sqs.get_queue_url(QueueName=name)["QueueUrl"]) for name in (DEAD_LETTER_QUEUE_ID, QUEUE_ID)]
        return urls[0], urls[1]
    return deployed_resource(args.stack_name, DEAD_LETTER_QUEUE_ID), deployed_resource(args.stack_name, QUEUE_ID)


def redrive(sqs: Any, dead_letters: str, target: str, max_messages: int) -> int:
    moved = 0
    while moved < max_messages:
        batch = sqs.receive_message(
            QueueUrl=dead_letters, MaxNumberOfMessages=min(10, max_messages - moved), WaitTimeSeconds=1
        ).get("Messages", [])
        if not batch:
            break
        entries = [{"Id": str(n), "MessageBody": message["Body"]} for n, message in enumerate(batch)]
        sent = sqs.send_message_batch(QueueUrl=target, Entries=entries)
        delivered = {entry["Id"] for entry in sent.get("Successful", [])}
        done = [
            {"Id": str(n), "ReceiptHandle": message["ReceiptHandle"]}
            for n, message in enumerate(batch)
            if str(n) in delivered
        ]
        if done:
            sqs.delete_message_batch(QueueUrl=dead_letters, Entries=done)
        moved += len(done)
        if len(done) < len(batch):
            print(f"{len(batch) - len(done)} message(s) could not be sent; they stay in the dead-letter queue")
            break
    return moved


def message_count(text: str) -> int:
    """--max-messages, read as every number from a person is (shortlink.numbers)."""
    try:
        return whole_number(text, "value", minimum=1)
    except NotAWholeNumber as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tools.operators.redrive_clicks", description=__doc__.split("\n\n")[0]
    )
    add_target_arguments(parser, "--dead-letter-queue-url", "the dead-letter queue, by URL (with --queue-url)")
    parser.add_argument("--queue-url", help="the clicks queue, by URL (with --dead-letter-queue-url)")
    parser.add_argument("--max-messages", type=message_count, default=10_000)
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    configure_endpoint(args)
    import boto3

    sqs = boto3.client("sqs")
    dead_letters, target = queue_urls(args, sqs)
    moved = redrive(sqs, dead_letters, target, args.max_messages)
    print(f"redrove {moved} message(s) from {dead_letters} to {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
