"""The QR style routes of the API's manage function: a link's saved style and the workspace's
default, which its links' codes follow until they have their own."""

import base64
from typing import Annotated, Any, Literal

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response
from aws_lambda_powertools.event_handler.openapi.params import Body
from pydantic import BaseModel, Field

from shortlink.access.api_keys import ADMIN, LINKS_READ, LINKS_WRITE
from shortlink.api import audit
from shortlink.api.auth import needs
from shortlink.api.link_presentation import requested_key
from shortlink.api.link_requests import DomainQuery
from shortlink.api.requests import api_request
from shortlink.api.responses import BODY_ERRORS, answers
from shortlink.errors import InvalidLinkOption
from shortlink.links.qr_images import normalised_logo
from shortlink.links.qr_style_choice import chosen_style
from shortlink.links.qr_styles import (
    MAX_LOGO_BYTES,
    MAX_MARGIN,
    MIN_CONTRAST,
    MIN_MARGIN,
    QrStyle,
    qr_style,
)
from shortlink.links.use_cases import owned_link
from shortlink.schemas.links import STRICT_REQUEST
from shortlink.wiring import link_domains, link_repository, qr_styles

Colour = Annotated[str, Field(pattern=r"^#[0-9a-fA-F]{6}$", description="#rrggbb")]
BASE64_LOGO_CHARS = (MAX_LOGO_BYTES + 2) // 3 * 4


class QrStyleRequest(BaseModel):
    model_config = STRICT_REQUEST

    dark: Annotated[Colour, Field(description=f"the modules: darker than light, contrast ≥ {MIN_CONTRAST}:1")] = (
        "#000000"
    )
    light: Annotated[Colour, Field(description="the background and quiet zone")] = "#ffffff"
    margin: Annotated[int, Field(ge=MIN_MARGIN, le=MAX_MARGIN, description="the quiet zone, in modules")] = 4
    logo: Annotated[
        str | None,
        Field(
            max_length=BASE64_LOGO_CHARS,
            description=f"a PNG or JPEG (≤ {MAX_LOGO_BYTES // 1024} KB, ≤ 1024 px a side) in base64, drawn in the "
            "centre; the code then uses error correction H",
        ),
    ] = None

    def style(self) -> QrStyle:
        """The style this body asks for, its logo decoded (InvalidLinkOption naming the field)."""
        logo = None
        if self.logo is not None:
            try:
                logo = normalised_logo(base64.b64decode(self.logo, validate=True))
            except ValueError:  # binascii.Error, or a character outside ASCII
                raise InvalidLinkOption("logo", "logo is a PNG or JPEG in base64") from None
        return qr_style(self.dark, self.light, self.margin, logo)


class QrStyleView(BaseModel):
    dark: str
    light: str
    margin: int
    logo: bool = Field(description="whether a logo is drawn in the centre")
    error_correction: Literal["M", "H"]
    source: Literal["link", "workspace", "default"] = Field(description="whose style the code follows")


def style_view(style: QrStyle, source: str) -> dict[str, Any]:
    shown = {"dark": style.dark, "light": style.light, "margin": style.margin, "logo": style.logo is not None}
    return {**shown, "error_correction": style.error_level.upper(), "source": source}


def json_answer(body: dict[str, Any]) -> Response[Any]:
    return Response(200, "application/json", QrStyleView(**body).model_dump_json())


def include_in(app: APIGatewayHttpResolver) -> None:
    """Add the QR style routes to `app` (the manage function's resolver)."""

    def link_key(code: str, domain: str | None) -> str:
        owner = api_request(app).actor.owner
        return owned_link(requested_key(code, domain, link_domains(owner)), owner, link_repository()).key

    @app.get(
        "/links/<code>/qr-style",
        summary="The style of a link's QR code",
        operation_id="getLinkQrStyle",
        responses=answers(200, "the style its code is drawn in", QrStyleView, 404),
        security=needs(LINKS_READ),
    )
    def link_style(code: str, domain: DomainQuery = None) -> Response[Any]:
        owner = api_request(app).actor.owner
        return json_answer(style_view(*chosen_style(qr_styles(), owner, link_key(code, domain))))

    @app.put(
        "/links/<code>/qr-style",
        summary="Save a style for a link's QR code",
        operation_id="saveLinkQrStyle",
        responses=answers(200, "the style as saved", QrStyleView, *BODY_ERRORS, 404),
        security=needs(LINKS_WRITE, LINKS_READ),
    )
    def save_link_style(
        code: str, request: Annotated[QrStyleRequest, Body()], domain: DomainQuery = None
    ) -> Response[Any]:
        style = request.style()
        qr_styles().save(api_request(app).actor.owner, link_key(code, domain), style)
        return json_answer(style_view(style, "link"))

    @app.delete(
        "/links/<code>/qr-style",
        summary="Drop a link's own QR style (its code follows the workspace's default)",
        operation_id="forgetLinkQrStyle",
        responses=answers(204, "dropped", None, 404),
        security=needs(LINKS_WRITE, LINKS_READ),
    )
    def forget_link_style(code: str, domain: DomainQuery = None) -> Response[Any]:
        qr_styles().forget(api_request(app).actor.owner, link_key(code, domain))
        return Response(status_code=204)

    @app.put(
        "/links/qr-style",
        summary="Save the workspace's default QR style",
        operation_id="saveDefaultQrStyle",
        responses=answers(200, "the default as saved", QrStyleView, *BODY_ERRORS),
        security=needs(ADMIN),
    )
    def save_default_style(request: Annotated[QrStyleRequest, Body()]) -> Response[Any]:
        style = request.style()
        qr_styles().save(api_request(app).actor.owner, None, style)
        audit.record(app, "setting.changed", "qr_style", ("qr_style",))  # as the console's form records it
        return json_answer(style_view(style, "workspace"))
