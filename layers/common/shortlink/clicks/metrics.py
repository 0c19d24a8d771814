"""The redirect's metrics (CloudWatch EMF, through Powertools, dimension service: the redirect's
POWERTOOLS_SERVICE_NAME, which ingest is told as REDIRECT_SERVICE_NAME).

Counted during an invocation, they are emitted after the response by the redirect's extension
when no click carries them, or by ingest for the clicks of a batch (shortlink.clicks): the
response path neither imports nor flushes Powertools. EphemeralMetrics keeps them apart from
the metrics of the function that emits them (Powertools' Metrics share one set per process)."""

import os
from collections.abc import Mapping
from functools import cache
from typing import Any

from shortlink.errors import ConfigurationError

DEFAULT_NAMESPACE = "Shortlink"


def service_name(env: Mapping[str, str]) -> str:
    """The redirect's service name: REDIRECT_SERVICE_NAME where another function emits its
    counts (ingest), else the service of the function itself (the redirect)."""
    name = env.get("REDIRECT_SERVICE_NAME") or env.get("POWERTOOLS_SERVICE_NAME")
    if not name:
        raise ConfigurationError("neither REDIRECT_SERVICE_NAME nor POWERTOOLS_SERVICE_NAME is set")
    return name


@cache
def _metrics(namespace: str, service: str) -> Any:
    # Imported on first use, in the extension thread after the first response (cold start).
    from aws_lambda_powertools.metrics import EphemeralMetrics

    return EphemeralMetrics(namespace=namespace, service=service)


def emit(counts: Mapping[str, int], env: Mapping[str, str] = os.environ) -> None:
    """One EMF record with every non-zero count (namespace from POWERTOOLS_METRICS_NAMESPACE,
    service from service_name, both read from `env`)."""
    if not any(counts.values()):
        return
    from aws_lambda_powertools.metrics import MetricUnit

    metrics = _metrics(env.get("POWERTOOLS_METRICS_NAMESPACE", DEFAULT_NAMESPACE), service_name(env))
    for name, value in sorted(counts.items()):
        if value:
            metrics.add_metric(name=name, unit=MetricUnit.Count, value=value)
    metrics.flush_metrics()
