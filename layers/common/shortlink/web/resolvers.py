"""Powertools' HTTP API resolver at either front's door: an event is read by its shape
(shortlink.web.events), handed to the routes as the HTTP API's (payload 2.0: Powertools routes by
its path, so the routing table stays the routes' own), and the answer shaped for the front that
called. The API's, the console's and the docs' functions answer through it."""

from collections.abc import Mapping
from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver
from aws_lambda_powertools.utilities.typing import LambdaContext

from shortlink.web.events import event_shape


class EitherFrontResolver(APIGatewayHttpResolver):
    """An HTTP API resolver that answers a load balancer's events too."""

    def resolve(self, event: Mapping[str, Any], context: LambdaContext) -> dict[str, Any]:
        """The routes' answer to `event`, from either front, in the shape that front takes."""
        raw = dict(event)
        shape = event_shape(raw)
        request = shape.http_api_event(raw)
        method = str(((request.get("requestContext") or {}).get("http") or {}).get("method") or "GET")
        return shape.response(super().resolve(request, context), method)
