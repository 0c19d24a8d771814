"""The comparison handlers, measured under the same harness as ours.

- `bare`: a function that returns a constant 302 (the floor of any Python handler);
- `framework`: the same constant 302 under the stack our redirect uses (Powertools Logger with
  the Lambda context injected, and Metrics flushing one metric as EMF);
- the naive handler is in naive.py, on its own so that its cold start counts only its imports.
"""

from typing import Any

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.metrics import MetricUnit

FOUND = {"statusCode": 302, "headers": {"Location": "https://example.com/", "Cache-Control": "no-store"}, "body": ""}

logger = Logger(service="bench-floor")
metrics = Metrics(namespace="ShortlinkBench", service="bench-floor")


def bare(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return FOUND


@metrics.log_metrics
@logger.inject_lambda_context
def framework(event: dict[str, Any], context: Any) -> dict[str, Any]:
    metrics.add_metric(name="Redirects", unit=MetricUnit.Count, value=1)
    return FOUND
