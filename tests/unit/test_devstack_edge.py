"""make dev's stand-in for the edge changes a request as CloudFront does: Host becomes the API's
own, the secret and the viewer's address replace any the client sent, the viewer's host is named
only where the template's viewer-request function would (several domains)."""

from typing import Any

from tools.developers.devstack.edge import API_HOST, EDGE_ADDRESS, as_the_edge


def environ_seen(names_the_host: bool, **sent: str) -> dict[str, Any]:
    seen: dict[str, Any] = {}

    def app(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        seen.update(environ)
        return []

    viewer = {"HTTP_HOST": "go.localhost:8080", "REMOTE_ADDR": "127.0.0.1", "REMOTE_PORT": "51000"}
    as_the_edge(app, "the-secret", names_the_host)({**viewer, **sent}, None)
    return seen


def test_the_secret_replaces_one_the_client_sent_and_several_domains_get_the_viewers_host():
    seen = environ_seen(True, HTTP_X_SHORTLINK_EDGE_SECRET="forged", HTTP_X_SHORTLINK_HOST="other.example")
    assert (seen["HTTP_X_SHORTLINK_EDGE_SECRET"], seen["HTTP_X_SHORTLINK_HOST"]) == ("the-secret", "go.localhost:8080")


def test_an_edge_of_one_domain_names_no_host():
    seen = environ_seen(False)
    assert seen["HTTP_X_SHORTLINK_EDGE_SECRET"] == "the-secret"
    assert "HTTP_X_SHORTLINK_HOST" not in seen


def test_host_is_the_apis_own_and_the_viewers_address_travels_in_the_edges_headers():
    seen = environ_seen(True, HTTP_CLOUDFRONT_VIEWER_ADDRESS="203.0.113.50:443", HTTP_X_FORWARDED_FOR="198.51.100.7")
    assert seen["HTTP_HOST"] == API_HOST
    assert seen["HTTP_CLOUDFRONT_VIEWER_ADDRESS"] == "127.0.0.1:51000"  # a forged one is replaced
    assert seen["HTTP_X_FORWARDED_FOR"] == "198.51.100.7, 127.0.0.1"  # appended to, as CloudFront does
    assert seen["REMOTE_ADDR"] == EDGE_ADDRESS


class FakeFunction:
    """Stands in for the Node-run edge function (tools.developers.devstack.edge_function.EdgeFunction)."""

    def __init__(self, answer: Any) -> None:
        self.answer = answer
        self.events: list[dict[str, Any]] = []

    def run(self, event: dict[str, Any]) -> dict[str, Any]:
        from tools.developers.devstack.edge_function import EdgeFunctionFailed

        self.events.append(event)
        if isinstance(self.answer, Exception):
            raise EdgeFunctionFailed(str(self.answer))
        return dict(self.answer(event["request"]) if callable(self.answer) else self.answer)


def through_the_tier(function: FakeFunction, **sent: str) -> tuple[dict[str, Any], list[Any], list[dict[str, str]]]:
    seen: dict[str, Any] = {}
    started: list[Any] = []
    logged: list[dict[str, str]] = []

    def app(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        seen.update(environ)
        start_response("302 Found", [("Location", "https://example.com/")])
        return []

    viewer = {"REQUEST_METHOD": "GET", "RAW_URI": "/abc?x=1", "QUERY_STRING": "x=1", "HTTP_HOST": "go.localhost:8080"}
    edge = as_the_edge(app, "the-secret", True, function, logged.append)  # type: ignore[arg-type]
    edge({"REMOTE_ADDR": "127.0.0.1", "REMOTE_PORT": "51000", **viewer, **sent}, lambda *args: started.append(args))
    return seen, started, logged


def test_with_the_tier_a_function_response_is_the_answer_and_the_api_is_not_asked():
    headers = {"location": {"value": "https://example.com/a"}, "cache-control": {"value": "no-store"}}
    function = FakeFunction({"statusCode": 302, "statusDescription": "Found", "headers": headers})
    seen, started, logged = through_the_tier(function, HTTP_USER_AGENT="Mozilla/5.0 (X11)")
    assert seen == {}
    assert started == [("302 Found", [("location", "https://example.com/a"), ("cache-control", "no-store")])]
    [fields] = logged
    assert (fields["x-edge-result-type"], fields["sc-status"], fields["cs-uri-stem"]) == (
        "FunctionGeneratedResponse",
        "302",
        "/abc",
    )
    assert fields["x-edge-request-id"] == function.events[0]["context"]["requestId"]
    assert fields["cs-user-agent"] == "Mozilla/5.0%20(X11)"


def test_with_the_tier_the_request_the_function_passes_on_reaches_the_api_through_the_edge():
    def passed(request: dict[str, Any]) -> dict[str, Any]:
        headers = {name: field for name, field in request["headers"].items() if name != "x-dropped"}
        return {**request, "headers": {**headers, "x-shortlink-host": {"value": "named.example"}}}

    seen, started, logged = through_the_tier(FakeFunction(passed), HTTP_X_DROPPED="1", HTTP_COOKIE="a=1")
    assert seen["HTTP_X_SHORTLINK_HOST"] == "named.example"  # the function's, not the local edge's own
    assert "HTTP_X_DROPPED" not in seen
    assert (seen["HTTP_COOKIE"], seen["HTTP_X_SHORTLINK_EDGE_SECRET"], seen["HTTP_HOST"]) == (
        "a=1",
        "the-secret",
        API_HOST,
    )
    assert started[0][0] == "302 Found"
    assert (logged[0]["x-edge-result-type"], logged[0]["sc-status"]) == ("Miss", "302")


def test_with_the_tier_a_function_that_fails_is_a_503_as_in_cloudfront():
    seen, started, _ = through_the_tier(FakeFunction(RuntimeError("boom")))
    assert seen == {}
    assert started[0][0] == "503 Service Unavailable"


def test_the_event_is_built_as_cloudfront_builds_it():
    from tools.developers.devstack.edge_function import viewer_request_event

    environ = {
        "REQUEST_METHOD": "HEAD",
        "RAW_URI": "/ab%63?a=1&b=%ff&a=2&&c",
        "QUERY_STRING": "a=1&b=%ff&a=2&&c",
        "REMOTE_ADDR": "203.0.113.9",
        "HTTP_HOST": "s.example",
        "HTTP_USER_AGENT": "curl/8",
        "HTTP_COOKIE": "one=1; two=2; one=3",
        "CONTENT_TYPE": "text/plain",
    }
    event = viewer_request_event(environ, "the-id")
    request = event["request"]
    assert (event["context"]["requestId"], event["context"]["eventType"], event["viewer"]["ip"]) == (
        "the-id",
        "viewer-request",
        "203.0.113.9",
    )
    assert (request["method"], request["uri"]) == ("HEAD", "/ab%63")
    assert request["querystring"] == {
        "a": {"value": "1", "multiValue": [{"value": "1"}, {"value": "2"}]},
        "b": {"value": "%ff"},
        "c": {"value": ""},
    }
    assert request["headers"] == {
        "host": {"value": "s.example"},
        "user-agent": {"value": "curl/8"},
        "content-type": {"value": "text/plain"},
    }
    assert request["cookies"] == {
        "one": {"value": "1", "multiValue": [{"value": "1"}, {"value": "3"}]},
        "two": {"value": "2"},
    }
