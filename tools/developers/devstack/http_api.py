"""SAM CLI's API Gateway emulator, answering where it differs as an HTTP API (payload 2.0) does.

- A request with no route (unknown path, or a method the path has no route for, HEAD included):
  404 {"message":"Not Found"}, where SAM answers a REST API's 403 or, for HEAD, a 502.
- A body that is not `text/*` or `application/json`, or is not UTF-8, reaches the function
  base64-encoded (`isBase64Encoded`), where SAM sends it as text or fails with a 502.
- A response without Content-Type goes out without one (SAM adds application/json), and its
  Location as the function wrote it (werkzeug re-encodes it as an IRI).
- A body shorter than its Content-Length, or a query that is not UTF-8 bytes: 400
  {"message":"Bad Request"} once the body has not come for READ_SECONDS, where werkzeug would
  wait for as long as the client keeps the connection open, or SAM fail with a 502.
"""

import json
import time
import uuid
from datetime import UTC, datetime
from typing import Any

import flask
from samcli.local.apigw.event_constructor import construct_v2_event_http
from samcli.local.apigw.local_apigw_service import LocalApigwService
from samcli.local.apigw.path_converter import PathConverter
from werkzeug.exceptions import BadRequest

from tools.developers.devstack.route_keys import ROUTE_KEY

NOT_FOUND = {"message": "Not Found"}
BAD_REQUEST = {"message": "Bad Request"}
# How long the server waits for a client's next bytes (the request handler's socket timeout).
READ_SECONDS = 2.0
TEXT_TYPES = ("text/", "application/json")


def sent_as_base64(mimetype: str, body: bytes) -> bool:
    if not mimetype.startswith(TEXT_TYPES):
        return bool(body)
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


class VerbatimLocation(flask.Response):
    """API Gateway sends Location as the function wrote it, and no Content-Type the function did
    not write; werkzeug would re-encode the one and add text/html for the other."""

    default_mimetype = None

    def get_wsgi_headers(self, environ: Any) -> Any:
        headers = super().get_wsgi_headers(environ)
        if "Location" in self.headers:
            headers["Location"] = self.headers["Location"]
        return headers


class HttpApiService(LocalApigwService):  # type: ignore[misc]
    def create(self) -> None:
        super().create()
        self._app.before_request(self._route_or_not_found)

    def _route_or_not_found(self) -> flask.Response | None:
        request = flask.request
        if request.endpoint is None or self._route_key(request.method, request.endpoint) not in self._dict_of_routes:
            return flask.make_response(flask.jsonify(NOT_FOUND), 404)
        path = PathConverter.convert_path_to_api_gateway(request.endpoint)
        request.environ[ROUTE_KEY] = f"{request.method} {path}"
        try:
            request.get_data(cache=True)  # read here, where a short body can be answered
            request.query_string.decode("utf-8")  # SAM's event constructor decodes it so
        except (TimeoutError, UnicodeDecodeError, BadRequest):  # BadRequest: the client went away
            return flask.make_response(flask.jsonify(BAD_REQUEST), 400)  # werkzeug then closes the connection
        return None

    def _generate_lambda_event(self, flask_request: Any, route: Any, method: str, endpoint: str) -> dict[str, Any]:
        now = datetime.now(UTC)
        event = dict(
            construct_v2_event_http(
                flask_request=flask_request,
                port=self.port,
                # "*/*" is SAM's way to say "base64-encode this body".
                binary_types=["*/*"] if sent_as_base64(flask_request.mimetype, flask_request.get_data()) else [],
                stage_name=self.api.stage_name,
                stage_variables=self.api.stage_variables,
                route_key=f"{method} {PathConverter.convert_path_to_api_gateway(endpoint)}",
                # SAM's defaults are fixed when it is imported: every event would carry that time.
                request_time_epoch=int(time.time() * 1000),
                request_time=now.strftime("%d/%b/%Y:%H:%M:%S +0000"),
            )
        )
        # The host the request came in on, as API Gateway names a custom domain (SAM: "localhost").
        event["requestContext"]["domainName"] = flask_request.host
        # Each request its own id, as API Gateway gives it (SAM's is one fixed value for all).
        event["requestContext"]["requestId"] = str(uuid.uuid4())
        return event

    @staticmethod
    def _parse_v2_payload_format_lambda_output(
        lambda_output: str, binary_types: Any, flask_request: Any
    ) -> tuple[int, Any, Any]:
        status, headers, body = LocalApigwService._parse_v2_payload_format_lambda_output(
            lambda_output, binary_types, flask_request
        )
        answer = json.loads(lambda_output)
        shaped = isinstance(answer, dict) and "statusCode" in answer  # else API Gateway infers JSON
        if shaped and not any(name.lower() == "content-type" for name in answer.get("headers") or {}):
            headers.remove("Content-Type")
        return int(status), headers, body

    @staticmethod
    def service_response(body: Any, headers: Any, status_code: int) -> flask.Response:
        response = VerbatimLocation(body)
        response.headers.update(headers)
        response.status_code = status_code
        return response
