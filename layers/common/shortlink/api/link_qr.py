"""The QR code route of the API's manage function: a link's short URL as SVG or PNG."""

import io
from typing import Annotated, Any, Literal

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response
from aws_lambda_powertools.event_handler.openapi.params import Query
from pydantic import BeforeValidator

from shortlink.access.api_keys import LINKS_READ
from shortlink.api.files import BINARY, TEXT, file_response, file_route
from shortlink.api.link_presentation import link_view, requested_key
from shortlink.api.link_requests import DomainQuery
from shortlink.api.requests import api_request
from shortlink.links.use_cases import owned_link
from shortlink.numbers import ascii_digits_only
from shortlink.wiring import addresses, link_repository, short_domains


def include_in(app: APIGatewayHttpResolver) -> None:
    """Add the QR code route to `app` (the manage function's resolver): its routes read the request `app` answers."""

    names = ("The QR code of the short URL", "linkQrCode")
    images = {"image/svg+xml": TEXT, "image/png": BINARY}

    @file_route(app, "/links/<code>/qr", LINKS_READ, names, "the QR code", images, 404)
    def qr_code(
        code: str,
        image_format: Annotated[Literal["svg", "png"], Query(alias="format")] = "svg",
        scale: Annotated[
            int, Query(ge=1, le=40, description="pixels per module"), BeforeValidator(ascii_digits_only)
        ] = 8,
        domain: DomainQuery = None,
    ) -> Response[Any]:
        """The QR code of the short URL: SVG by default, PNG with ?format=png."""
        import segno  # only this route draws

        link = owned_link(requested_key(code, domain, short_domains()), api_request(app).actor.owner, link_repository())
        image = io.BytesIO()
        segno.make(link_view(api_request(app).host, link, addresses(), short_domains()).short_url, error="m").save(
            image, kind=image_format, scale=scale, border=4
        )
        if image_format == "svg":
            return file_response(image.getvalue().decode(), "image/svg+xml")
        return file_response(image.getvalue(), "image/png")
