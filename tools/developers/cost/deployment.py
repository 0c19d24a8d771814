"""What the template deploys, as `make cost` prices it: each function's memory, architecture and
platform logs, the create's rate limit, the API's access log line, the redirect's metrics record."""

import io
from contextlib import redirect_stdout
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from tools.developers.cost.prices import PRICES, FunctionSpec

if TYPE_CHECKING:
    from tools.developers.devstack.template import LocalTemplate

ROOT = Path(__file__).resolve().parents[3]


@cache
def template() -> "LocalTemplate":
    """template.yaml as SAM CLI reads it (tools.developers.devstack.template): Globals merged, defaults applied."""
    from tools.developers.devstack.template import LocalTemplate

    return LocalTemplate.load(ROOT / "template.yaml")


def function_specs() -> dict[str, FunctionSpec]:
    """Each function as deployed with the template's defaults (SAM CLI resolves Globals and
    parameters such as Architecture)."""
    functions = template().functions
    return {
        name: FunctionSpec(
            memory_gb=(function.memory or 128) / 1024,
            architecture=(function.architectures or ["x86_64"])[0],
            platform_logs=(function.logging_config or {}).get("SystemLogLevel", "INFO") != "WARN",
        )
        for name, function in functions.items()
    }


def create_rate_limited() -> bool:
    return int(template().parameter_default("CreateRateLimitPerMinute")) > 0


def access_log_price_per_gb() -> float:
    """What a GB of access log costs in the log group class the template gives it."""
    group = template().properties("ApiAccessLogs")
    if group.get("LogGroupClass") == "INFREQUENT_ACCESS":
        return PRICES["logs_ingested_gb_infrequent_access"]
    return PRICES["logs_ingested_gb"]


def access_log_bytes() -> int:
    """One access log line as the template formats it, with typical values."""
    settings = template().properties("ShortlinkApi").get("AccessLogSettings")
    if isinstance(settings, dict) and "Fn::If" in settings:  # the AccessLogs parameter decides
        condition, enabled, _ = settings["Fn::If"]
        assert condition == "HasAccessLogs", condition
        settings = enabled if template().parameter_default("AccessLogs") == "Enabled" else None
    if not settings:
        return 0
    sample = {
        "$context.requestId": "JkD2ZgXqIAMEVJQ=",
        "$context.identity.sourceIp": "203.0.113.45",
        "$context.requestTime": "30/Nov/2026:01:02:03 +0000",
        "$context.requestTimeEpoch": "1796000523",
        "$context.httpMethod": "GET",
        "$context.path": "/Ab3dE9x",
        "$context.routeKey": "GET /{code}",
        "$context.status": "302",
        "$context.responseLatency": "12",
        "$context.integrationErrorMessage": "-",
    }
    line = str(settings["Format"])
    for variable, value in sample.items():
        line = line.replace(variable, value)
    return len(line.encode()) + 60  # CloudWatch Logs adds a timestamp and framing per event


def redirect_metrics_bytes() -> int:
    """The EMF record of the redirect's metrics that ingest emits per batch, measured by emitting
    one (a redirect's own click carries its counts there; see shortlink.clicks)."""
    from shortlink.clicks import metrics as deferred_metrics
    from shortlink.settings.metrics import RedirectMetricSettings

    # The redirect's own service name and namespace, as the template sets them.
    redirect_environment = {
        name: str(value)
        for name, value in (template().functions["RedirectFunction"].environment or {})["Variables"].items()
        if name.startswith("POWERTOOLS_")
    }

    captured = io.StringIO()
    with redirect_stdout(captured):
        deferred_metrics.emit(
            {"CacheHits": 950, "CacheMisses": 50}, lambda: RedirectMetricSettings.from_env(redirect_environment)
        )
    return len(captured.getvalue().encode())


def listener_rules() -> int:
    """The load balancer's listener rules (balancer.yaml): a redirect, the default action, is
    tested against every one of them."""
    resources = template().stack("Balancer").resources.values()
    return sum(resource.get("Type") == "AWS::ElasticLoadBalancingV2::ListenerRule" for resource in resources)


def cache_ttl_seconds() -> int:
    """How long a redirect environment serves a cached link (LinkCacheTtlSeconds)."""
    return int(template().parameter_default("LinkCacheTtlSeconds"))


def api_stage_throttle() -> tuple[int, int]:
    """The HTTP API stage's steady rate and burst (ApiThrottleRate, ApiThrottleBurst)."""
    return int(template().parameter_default("ApiThrottleRate")), int(template().parameter_default("ApiThrottleBurst"))
