"""Metrics counted during an invocation and emitted (CloudWatch EMF, through Powertools) after
the response: the redirect's response path neither imports nor flushes Powertools."""

import os
from collections.abc import Mapping
from functools import cache
from typing import Any

SERVICE = "redirect"
DEFAULT_NAMESPACE = "Shortlink"


@cache
def _metrics() -> Any:
    # Imported on first use, in the extension thread after the first response (cold start).
    from aws_lambda_powertools import Metrics

    return Metrics(namespace=os.environ.get("POWERTOOLS_METRICS_NAMESPACE", DEFAULT_NAMESPACE), service=SERVICE)


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
