"""The redirect's metrics (CloudWatch EMF, through Powertools, dimension service=redirect).

Counted during an invocation, they are emitted after the response by the redirect's extension
when no click carries them, or by ingest for the clicks of a batch (shortlink.clicks): the
response path neither imports nor flushes Powertools. EphemeralMetrics keeps them apart from
the metrics of the function that emits them (Powertools' Metrics share one set per process)."""

import os
from collections.abc import Mapping
from functools import cache
from typing import Any

SERVICE = "redirect"
DEFAULT_NAMESPACE = "Shortlink"


@cache
def _metrics() -> Any:
    # Imported on first use, in the extension thread after the first response (cold start).
    from aws_lambda_powertools.metrics import EphemeralMetrics

    namespace = os.environ.get("POWERTOOLS_METRICS_NAMESPACE", DEFAULT_NAMESPACE)
    return EphemeralMetrics(namespace=namespace, service=SERVICE)


def emit(counts: Mapping[str, int]) -> None:
    """One EMF record with every non-zero count (namespace from POWERTOOLS_METRICS_NAMESPACE)."""
    if not any(counts.values()):
        return
    from aws_lambda_powertools.metrics import MetricUnit

    metrics = _metrics()
    for name, value in sorted(counts.items()):
        if value:
            metrics.add_metric(name=name, unit=MetricUnit.Count, value=value)
    metrics.flush_metrics()
