"""A link's QR code in the console: the image in its saved style, and the form that saves a style
for the link or as the workspace's default: colours, quiet zone and a logo (a PNG or JPEG file
posted with the form, normalised as the API's PUT /links/{code}/qr-style does it; kept unless
another is chosen or it is removed)."""

from typing import Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from shortlink.console import audit, forms
from shortlink.console.pages import see_other
from shortlink.console.plumbing import Refused, page_of, query, requested, requiring, short_link, uploaded_by_session
from shortlink.errors import InvalidLinkOption
from shortlink.links.qr_images import normalised_logo, qr_image
from shortlink.links.qr_style_choice import chosen_style
from shortlink.links.qr_styles import MAX_MARGIN, MIN_MARGIN, qr_style
from shortlink.numbers import NotAWholeNumber, whole_number
from shortlink.wiring import qr_styles

router = APIGatewayHttpRouter()  # type: ignore[no-untyped-call]  # Powertools leaves it untyped
MEDIA_TYPES = {"svg": "image/svg+xml", "png": "image/png"}
LOGO_FILE = "logo_file"  # the form's file input


@router.get("/console/links/<code>/qr.<image_format>")
def qr_code(code: str, image_format: str) -> Response[Any]:
    _, key = requiring("links:read")
    if image_format not in MEDIA_TYPES:
        raise Refused(404, "a QR code is an .svg or a .png")
    link = requested(code, key)
    style, _ = chosen_style(qr_styles(), key.owner, link.key)
    image = qr_image(short_link(link).short_url, style, "png" if image_format == "png" else "svg", 8)
    headers = {"Cache-Control": "no-store"}
    if query("download") == "1":
        headers["Content-Disposition"] = f'attachment; filename="{link.code}-qr.{image_format}"'
    body = image.decode() if image_format == "svg" else image
    return Response(200, MEDIA_TYPES[image_format], body, headers=headers)


def posted_margin(form: forms.Form) -> int:
    try:
        return whole_number(forms.value(form, "margin"), "margin", minimum=MIN_MARGIN, maximum=MAX_MARGIN)
    except NotAWholeNumber as error:
        raise InvalidLinkOption("margin", str(error)) from None


@router.post("/console/links/<code>/qr-style")
def save_style(code: str) -> Response[Any]:
    """Save the posted style for the link ("save": link), as the default ("save": workspace), or
    drop the link's own ("save": reset); a refusal shows on the link's page, naming the rule."""
    upload, _, key = uploaded_by_session("links:write", "links:read")
    form = upload.fields
    link = requested(code, key)
    target = forms.value(form, "save")
    if target not in ("link", "workspace", "reset"):
        raise Refused(400, "save is link, workspace or reset")
    if target == "workspace" and not key.allows("admin"):
        raise Refused(403, "only an admin sets the workspace's default QR style")
    link_key = None if target == "workspace" else link.key
    if target == "reset":
        qr_styles().forget(key.owner, link.key)
        return see_other(page_of(link))
    kept, _ = chosen_style(qr_styles(), key.owner, link.key)
    logo = None if forms.value(form, "logo") == "remove" else kept.logo
    try:
        if LOGO_FILE in upload.files:
            logo = normalised_logo(upload.files[LOGO_FILE])
        style = qr_style(forms.value(form, "dark"), forms.value(form, "light"), posted_margin(form), logo)
    except InvalidLinkOption as error:
        raise Refused(422, str(error)) from None
    qr_styles().save(key.owner, link_key, style)
    if target == "workspace":
        audit.record(key, "setting.changed", "qr_style", ("qr_style",))
    return see_other(page_of(link))
