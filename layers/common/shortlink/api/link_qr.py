"""The QR code route of the API's manage function: a link's short URL as SVG or PNG, drawn in
its saved style (shortlink.api.qr_style_views)."""

from typing import Annotated, Any, Literal

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response
from aws_lambda_powertools.event_handler.openapi.params import Query
from pydantic import BeforeValidator

from shortlink.access.api_keys import LINKS_READ
from shortlink.api.files import BINARY, TEXT, file_response, file_route
from shortlink.api.link_presentation import link_view, requested_key
from shortlink.api.link_requests import DomainQuery
from shortlink.api.requests import api_request
from shortlink.links.qr_images import qr_image
from shortlink.links.qr_style_choice import chosen_style
from shortlink.links.use_cases import owned_link
from shortlink.numbers import ascii_digits_only
from shortlink.wiring import addresses, link_domains, link_repository, qr_styles, short_domains


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
        """The QR code of the short URL in its saved style: SVG by default, PNG with ?format=png."""
        owner = api_request(app).actor.owner
        link = owned_link(requested_key(code, domain, link_domains(owner)), owner, link_repository())
        style, _ = chosen_style(qr_styles(), owner, link.key)
        short_url = link_view(api_request(app).host, link, addresses(), short_domains()).short_url
        image = qr_image(short_url, style, image_format, scale)
        if image_format == "svg":
            return file_response(image.decode(), "image/svg+xml")
        return file_response(image, "image/png")
