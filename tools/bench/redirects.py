"""The redirect's latency and AWS calls on hits and misses, against the same floors (a bare
function, Powertools Logger + Metrics, a constant 302 through our own stack) and the naive
handler, all under the one harness."""

import os
from typing import Any

from shortlink import wiring as services
from tests.aws_calls import recording_aws_calls
from tools.bench.harness import (
    CHUNK,
    REGION,
    QuietCycle,
    Stack,
    UnderLambda,
    follow_event,
    median_us,
    percentiles,
    progress,
    time_calls,
)
from tools.devstack.extensions_api import ExtensionsApi
from tools.devstack.lambda_runtime import Handler, LambdaContext

HIT_CALLS = 5_000
MISS_CALLS = 1_000
FLOOR_CALLS = 5_000
NAIVE_CALLS = 1_000
CALL_COUNT_SAMPLE = 100


def own_stack_floor() -> tuple[Handler, ExtensionsApi]:
    """A constant 302 through our redirect's own stack: a metric counted and a click handed to
    an internal extension, which sends it and emits the metric after the response."""
    from shortlink.redirect.click_dispatch import click_dispatcher
    from tools.bench.handlers import FOUND

    api = ExtensionsApi("OwnStackFloor", REGION)
    os.environ["AWS_LAMBDA_RUNTIME_API"] = api.address
    try:
        dispatcher = click_dispatcher(services.click_publisher, services.visitor_salt_root)
    finally:
        del os.environ["AWS_LAMBDA_RUNTIME_API"]

    def floor(event: dict[str, Any], context: Any) -> dict[str, Any]:
        try:
            dispatcher.count("CacheHits")
            dispatcher.record_click("floor", event)
            return FOUND
        finally:
            dispatcher.invocation_done()

    return floor, api


def measure_redirects(stack: Stack, hit_code: str, miss_codes: list[str]) -> dict[str, Any]:
    from tools.bench import handlers as floors
    from tools.bench import naive

    ours = UnderLambda.redirect(stack)
    own_floor, own_api = own_stack_floor()
    floor = UnderLambda(stack, own_floor, own_api)
    hit_event = follow_event(hit_code)
    progress(f"our redirect on cache hits and the own-stack floor, x{HIT_CALLS} each, interleaved")
    # In alternating rounds: whatever else this shared machine does weighs on both alike.
    hit: list[int] = []
    hit_after: list[int] = []
    own_stack: list[int] = []
    for _ in range(HIT_CALLS // CHUNK):
        hit += ours.timed([hit_event] * CHUNK, warmup=20)
        hit_after += ours.after_response
        own_stack += floor.timed([hit_event] * CHUNK, warmup=20)
    own_api.wait_until_idle(10)
    own_api.stop()
    # Counted on a freshly cached link: the timed rounds outlast its TTL.
    services.forget_cached_links()
    ours.timed([hit_event], warmup=0)
    hit_calls = ours.calls_per_request([hit_event] * CALL_COUNT_SAMPLE)
    progress(f"our redirect, cache misses x{MISS_CALLS}")
    services.forget_cached_links()
    miss = ours.timed([follow_event(code) for code in miss_codes[:MISS_CALLS]], warmup=0)
    miss_after = ours.after_response
    services.forget_cached_links()
    miss_calls = ours.calls_per_request([follow_event(code) for code in miss_codes[MISS_CALLS:]])

    progress(f"floors x{FLOOR_CALLS}, naive x{NAIVE_CALLS}")
    context = LambdaContext("Floor", 512, 10, REGION)
    cycle = QuietCycle(stack)
    bare = cycle.timed(lambda: floors.bare(hit_event, context), FLOOR_CALLS)
    powertools = cycle.timed(lambda: floors.framework(hit_event, context), FLOOR_CALLS)
    with recording_aws_calls() as naive_calls:
        naive.handler(hit_event, None)
    naive_samples: list[int] = []
    for _ in range(NAIVE_CALLS // CHUNK):
        ours.fresh_clicks_queue()
        naive.QUEUE = os.environ["CLICKS_QUEUE_URL"]
        naive_samples += time_calls(lambda _: naive.handler(hit_event, None), CHUNK, warmup=20)
    return {
        "ours_hit": {**percentiles(hit), **hit_calls, "extension_after_response_p50_us": median_us(hit_after)},
        "ours_miss": {**percentiles(miss), **miss_calls, "extension_after_response_p50_us": median_us(miss_after)},
        "floor_bare": {**percentiles(bare), "aws_calls_before_response": 0},
        "floor_powertools_logger_metrics": {**percentiles(powertools), "aws_calls_before_response": 0},
        "floor_own_stack": {**percentiles(own_stack), "aws_calls_before_response": 0},
        "naive": {**percentiles(naive_samples), "aws_calls_before_response": len(naive_calls.calls)},
    }
