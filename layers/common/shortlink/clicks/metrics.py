"""The redirect's metrics (CloudWatch EMF, through Powertools, dimension service: the redirect's
POWERTOOLS_SERVICE_NAME, which ingest is told as REDIRECT_SERVICE_NAME).

Counted during an invocation, they are emitted after the response by the redirect's extension
when no click carries them, or by ingest for the clicks of a batch (shortlink.clicks): the
response path neither imports nor flushes Powertools. EphemeralMetrics keeps them apart from
the metrics of the function that emits them (Powertools' Metrics share one set per process)."""

from collections.abc import Callable, Mapping
from functools import cache
from typing import Any

from shortlink.settings.metrics import RedirectMetricSettings


@cache
def _metrics(namespace: str, service: str) -> Any:
    # Imported on first use, in the extension thread after the first response (cold start).
    from aws_lambda_powertools.metrics import EphemeralMetrics

    return EphemeralMetrics(namespace=namespace, service=service)


def emit(counts: Mapping[str, int], settings: Callable[[], RedirectMetricSettings]) -> None:
    """One EMF record with every non-zero count, under the namespace and service of `settings`
    (read only when there is a count to emit)."""
    if not any(counts.values()):
        return
    from aws_lambda_powertools.metrics import MetricUnit

    names = settings()
    metrics = _metrics(names.namespace, names.service)
    for name, value in sorted(counts.items()):
        if value:
            metrics.add_metric(name=name, unit=MetricUnit.Count, value=value)
    metrics.flush_metrics()
