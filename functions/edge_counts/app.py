"""The edge's counts reconciled, on a schedule (shortlink.edge.count_check): CloudFront's count of
the viewer-request function's invocations against the real-time log lines ingest read, for the
last closed hour, published as EdgeCountDifference and EdgeCountRatio (the alarm's metrics) when
the check runs (an alarm reads only recent datapoints); the log line names the hour they are of.
"""

from datetime import UTC, datetime
from typing import Any

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.typing import LambdaContext

from shortlink.edge.count_check import check_edge_counts
from shortlink.wiring import edge_counts

logger = Logger()
metrics = Metrics()


@metrics.log_metrics
@logger.inject_lambda_context
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> None:
    gap = check_edge_counts(edge_counts(), datetime.now(UTC))
    metrics.add_metric(name="EdgeCountDifference", unit=MetricUnit.Count, value=gap.difference)
    metrics.add_metric(name="EdgeCountRatio", unit=MetricUnit.NoUnit, value=gap.ratio)
    logger.info(
        "edge counts checked",
        extra={
            "period_start": gap.period.start.isoformat(),
            "invocations": gap.invocations,
            "lines": gap.lines,
            "difference": gap.difference,
        },
    )
