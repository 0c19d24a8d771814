"""Daily: the click lake against the counters for a closed UTC day (docs/click-lake.md).

The schedule runs it each morning for the day before yesterday: Firehose writes a row within
its buffer (at most 15 minutes) and ingest counts a click within its queue's retries, so by then
both hold every click of that day. An event's "day" ('YYYY-MM-DD') checks another day. The
differing link-days become the ClickLakeDifferences metric (its alarm) and one log line each,
links named as the lake names them (a private link's code hashed)."""

from datetime import UTC, date, datetime, timedelta
from typing import Any

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.typing import LambdaContext

from shortlink.clicks.lake_reconciliation import reconcile
from shortlink.wiring import counted_link_days, lake_link_days

logger = Logger()
metrics = Metrics()
# Days between a day's end and its check: the day must be closed in both the lake and the counters.
SETTLED_DAYS = 2


def checked_day(event: dict[str, Any], today: date) -> str:
    """The event's "day" (an ISO date of ASCII digits), or the last settled day."""
    given = event.get("day")
    if given is None:
        return (today - timedelta(days=SETTLED_DAYS)).isoformat()
    try:
        if not isinstance(given, str) or not given.isascii() or len(given) != 10:
            raise ValueError("not ten ASCII characters")
        return date.fromisoformat(given).isoformat()
    except ValueError as error:
        raise ValueError(f"day must be a date as YYYY-MM-DD, not {given!r} ({error})") from error


def check(event: dict[str, Any], today: date) -> dict[str, Any]:
    day = checked_day(event, today)
    found = reconcile(lake_link_days(), counted_link_days(), day, day)
    for difference in found:
        logger.warning(
            "click lake differs from the counters",
            extra={
                "day": difference.day,
                "link": difference.link,
                "lake": difference.lake,
                "counters": difference.counters,
            },
        )
    metrics.add_metric(name="ClickLakeDifferences", unit=MetricUnit.Count, value=len(found))
    logger.info("click lake reconciled", extra={"day": day, "differences": len(found)})
    return {"day": day, "differences": len(found)}


@metrics.log_metrics
@logger.inject_lambda_context
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return check(event, datetime.now(UTC).date())
