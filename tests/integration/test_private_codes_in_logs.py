"""The functions' log lines on their error paths hold no private code (its capability)."""

import logging
from collections.abc import Iterator

import pytest

from shortlink import wiring as services
from tools.developers.devstack.sqs_trigger import sqs_event


@pytest.fixture
def private_code(api) -> str:
    return str(api.new_link(url="https://example.com/p", private=True)["code"])


class EveryRecord(logging.Handler):
    """Each record's whole content: its message, its extra fields, its traceback."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.written: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        traceback = logging.Formatter().formatException(record.exc_info) if record.exc_info else ""
        self.written.append(f"{record.getMessage()} {record.__dict__} {traceback}")


@pytest.fixture
def logged() -> Iterator[list[str]]:
    """What every logger writes, Powertools' (which do not propagate) included."""
    handler = EveryRecord()
    loggers = [
        logging.getLogger(),
        *(item for item in logging.Logger.manager.loggerDict.values() if isinstance(item, logging.Logger)),
    ]
    for logger in loggers:
        logger.addHandler(handler)
    yield handler.written
    for logger in loggers:
        logger.removeHandler(handler)


def assert_not_logged(code: str, logged: list[str]) -> None:
    assert logged  # the failure was logged...
    assert [line for line in logged if code in line] == []  # ...without the code


def test_a_malformed_link_item_is_logged_without_its_code(aws, handlers, private_code, logged, api):
    # Given the link's item lost an attribute every link has
    aws.dynamodb.update_item(
        TableName="LinksTable",
        Key={"code": {"S": private_code}},
        UpdateExpression="REMOVE #created",
        ExpressionAttributeNames={"#created": "created_at"},
    )
    services.reset()
    assert api.follow(private_code).status == 503
    assert_not_logged(private_code, logged)


def test_clicks_not_counted_are_logged_without_their_code(aws, handlers, private_code, logged, api):
    # Given a click of the private link on the queue
    assert api.follow(private_code).status == 302
    queue = aws.queue_urls["ClicksQueue"]
    messages = aws.sqs.receive_message(QueueUrl=queue, MaxNumberOfMessages=10, AttributeNames=["All"])["Messages"]
    logged.clear()
    # When ingest cannot write its counters
    aws.dynamodb.delete_table(TableName="ClickStatsTable")
    services.reset()
    result = handlers["IngestFunction"](
        sqs_event(messages, "arn:aws:sqs:us-east-1:123456789012:ClicksQueue", "us-east-1")
    )
    # Then the batch comes back, and the log line says so without the code
    assert len(result["batchItemFailures"]) == len(messages)
    assert_not_logged(private_code, logged)
