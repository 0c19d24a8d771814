"""The local stack's Application Load Balancer front (`FRONT=alb make dev`): the same routes as the
HTTP API's (the load balancer's listener rules follow them), each request sent to its function as
a load balancer sends it to a Lambda target, and the function's answer read as a load balancer
reads it (Elastic Load Balancing guide, "Lambda functions as targets").

- The event: `requestContext.elb`, `httpMethod`, the path and the query names and values as the
  client sent them (not decoded; a repeated one keeps its last value, or all of them with
  multi-value headers on: `FRONT=alb-multi-value`), headers by lower-case name (`multiValueHeaders`
  in multi-value mode), the client's address appended to X-Forwarded-For, X-Forwarded-Proto and
  -Port, X-Amzn-Trace-Id; a body that is not text, or not UTF-8, base64-encoded.
- The answer: `statusCode`, `isBase64Encoded` and `headers` (or `multiValueHeaders`) are needed,
  and its JSON may be at most 1 MB: otherwise 502, as the load balancer answers.
- Target health: `GET /health` from `ELB-HealthChecker/2.0`, checked once as the stack starts.

Not exercised here: listener rules that differ from the template's routes, TLS, WAF, the load
balancer's own answers to requests it refuses (header limits, WebSocket upgrades).
"""

import base64
import json
import secrets
import time
from typing import Any

from samcli.local.apigw.exceptions import LambdaResponseParseException
from werkzeug.datastructures import Headers

from tools.developers.devstack.http_api import HttpApiService, sent_as_base64

# The switch's values (FRONT): the HTTP API (the default) or a load balancer in either mode.
FRONTS = ("http-api", "alb", "alb-multi-value")
# What a load balancer takes back from a Lambda target (its JSON, in bytes).
RESPONSE_LIMIT = 1_000_000
HEALTH_CHECK_PATH = "/health"
HEALTH_CHECKER = "ELB-HealthChecker/2.0"
ACCOUNT = "123456789012"


def front_of(value: str | None) -> str:
    """The front FRONT names ("http-api" when unset); ValueError for any other value."""
    front = value or FRONTS[0]
    if front not in FRONTS:
        raise ValueError(f"FRONT must be one of {', '.join(FRONTS)}, not {front!r}")
    return front


def target_group_arn(function: str, region: str) -> str:
    return f"arn:aws:elasticloadbalancing:{region}:{ACCOUNT}:targetgroup/{function[:32]}/{secrets.token_hex(8)}"


def trace_id() -> str:
    return f"Root=1-{int(time.time()):08x}-{secrets.token_hex(12)}"


def raw_query_pairs(query: str) -> list[tuple[str, str]]:
    """The query's names and values as sent ("flag" alone is ("flag", "")), none decoded."""
    pairs = []
    for part in query.split("&"):
        if part:
            name, _, value = part.partition("=")
            pairs.append((name, value))
    return pairs


def load_balancer_event(
    method: str,
    raw_path: str,
    raw_query: str,
    headers: list[tuple[str, str]],
    body: bytes,
    client_ip: str,
    multi_value: bool,
    target_group: str,
    *,
    base64_body: bool,
) -> dict[str, Any]:
    """The event a load balancer sends its Lambda target for this request: `headers` as the client
    sent them (names in any case), the client's address `client_ip` appended to X-Forwarded-For."""
    several: dict[str, list[str]] = {}
    for name, value in headers:
        several.setdefault(name.lower(), []).append(value)
    sent_for = several.pop("x-forwarded-for", [])
    several["x-forwarded-for"] = [", ".join([*sent_for, client_ip])]
    several.setdefault("x-amzn-trace-id", [trace_id()])
    queries: dict[str, list[str]] = {}
    for name, value in raw_query_pairs(raw_query):
        queries.setdefault(name, []).append(value)
    event: dict[str, Any] = {
        "requestContext": {"elb": {"targetGroupArn": target_group}},
        "httpMethod": method,
        "path": raw_path,
        "body": base64.b64encode(body).decode() if base64_body else body.decode(),
        "isBase64Encoded": base64_body,
    }
    if multi_value:
        event["multiValueHeaders"] = several
        event["multiValueQueryStringParameters"] = queries
    else:  # one value a name: the last one sent
        event["headers"] = {name: values[-1] for name, values in several.items()}
        event["queryStringParameters"] = {name: values[-1] for name, values in queries.items()}
    return event


def answer_of(lambda_output: str | bytes) -> tuple[int, Headers, bytes]:
    """A Lambda target's answer as a load balancer reads it; LambdaResponseParseException (a 502)
    for one it refuses: not JSON, larger than RESPONSE_LIMIT, no status, headers or isBase64Encoded."""
    output = lambda_output.encode() if isinstance(lambda_output, str) else lambda_output
    if len(output) > RESPONSE_LIMIT:
        raise LambdaResponseParseException(f"the response is larger than {RESPONSE_LIMIT} bytes")
    try:
        answer = json.loads(output)
    except ValueError as error:
        raise LambdaResponseParseException("the response is not JSON") from error
    if not isinstance(answer, dict) or not isinstance(answer.get("statusCode"), int):
        raise LambdaResponseParseException("the response has no statusCode")
    if not isinstance(answer.get("isBase64Encoded"), bool):
        raise LambdaResponseParseException("the response has no isBase64Encoded")
    headers = Headers()
    if isinstance(answer.get("multiValueHeaders"), dict):
        for name, values in answer["multiValueHeaders"].items():
            for value in values:
                headers.add(name, str(value))
    elif isinstance(answer.get("headers"), dict):
        for name, value in answer["headers"].items():
            headers.add(name, str(value))
    else:
        raise LambdaResponseParseException("the response has no headers")
    body = str(answer.get("body") or "")
    return answer["statusCode"], headers, base64.b64decode(body) if answer["isBase64Encoded"] else body.encode()


class LoadBalancerService(HttpApiService):
    """The local stack's front as a load balancer: the HTTP API's routes, a load balancer's events."""

    multi_value = False
    region = "us-east-1"

    def _generate_lambda_event(self, flask_request: Any, route: Any, method: str, endpoint: str) -> dict[str, Any]:
        environ = flask_request.environ
        raw_path = str(environ.get("RAW_URI") or environ.get("REQUEST_URI") or flask_request.path).split("?", 1)[0]
        body = flask_request.get_data()
        return load_balancer_event(
            method,
            raw_path,
            str(environ.get("QUERY_STRING", "")),
            list(flask_request.headers.items()),
            body,
            flask_request.remote_addr or "",
            self.multi_value,
            target_group_arn(route.function_name, self.region),
            base64_body=sent_as_base64(flask_request.mimetype, body),
        )

    @staticmethod
    def _parse_v2_payload_format_lambda_output(
        lambda_output: str | bytes, binary_types: Any, flask_request: Any
    ) -> tuple[int, Any, Any]:
        return answer_of(lambda_output)


def load_balancer_service(multi_value: bool, region: str) -> type[LoadBalancerService]:
    """The load balancer front's class for `region`, in single- or multi-value mode."""
    return type("LocalLoadBalancer", (LoadBalancerService,), {"multi_value": multi_value, "region": region})


def health_check(service: LoadBalancerService, function: str) -> int:
    """The status `function` answers a target health check with (200 is healthy): the event as
    the load balancer sends it, with no header but its User-Agent."""
    event: dict[str, Any] = {
        "requestContext": {"elb": {"targetGroupArn": target_group_arn(function, service.region)}},
        "httpMethod": "GET",
        "path": HEALTH_CHECK_PATH,
        "body": "",
        "isBase64Encoded": False,
    }
    if service.multi_value:
        event |= {"multiValueHeaders": {"user-agent": [HEALTH_CHECKER]}, "multiValueQueryStringParameters": {}}
    else:
        event |= {"headers": {"user-agent": HEALTH_CHECKER}, "queryStringParameters": {}}
    status, _, _ = answer_of(json.dumps(service.lambda_runner.call(function, event)))
    return status
