"""A short URL's QR code drawn in a style, as SVG or PNG (segno; Pillow only where a logo is
decoded or laid on a PNG), and an uploaded logo decoded safely into the PNG a style keeps."""

import base64
import io
from typing import Literal

from shortlink.errors import InvalidLinkOption
from shortlink.links.qr_styles import LOGO_SHARE, MAX_LOGO_BYTES, MAX_LOGO_SIDE, STORED_LOGO_SIDE, QrStyle

ImageFormat = Literal["svg", "png"]
LOGO_FORMATS = ("PNG", "JPEG")


def normalised_logo(uploaded: bytes) -> bytes:
    """An uploaded PNG or JPEG as a PNG of at most STORED_LOGO_SIDE pixels a side; refused with
    InvalidLinkOption("logo") when too large, of another format or not decodable. The header's
    size is checked before any pixel is decoded (no decompression bombs)."""
    from PIL import Image, UnidentifiedImageError  # only a logo's upload and a PNG with a logo decode images

    if len(uploaded) > MAX_LOGO_BYTES:
        raise InvalidLinkOption("logo", f"a logo is at most {MAX_LOGO_BYTES // 1024} KB")
    try:
        with Image.open(io.BytesIO(uploaded), formats=LOGO_FORMATS) as image:
            if max(image.size) > MAX_LOGO_SIDE:
                raise InvalidLinkOption("logo", f"a logo is at most {MAX_LOGO_SIDE} pixels a side")
            image.load()
            logo = image.convert("RGBA")
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError, Image.DecompressionBombError):
        raise InvalidLinkOption("logo", "a logo is a PNG or JPEG image that decodes") from None
    logo.thumbnail((STORED_LOGO_SIDE, STORED_LOGO_SIDE))
    out = io.BytesIO()
    logo.save(out, format="PNG", optimize=True)
    return out.getvalue()


def _logo_box(modules: int, margin: int, scale: int) -> tuple[int, int]:
    """The logo's square in pixels (its left/top edge and side), centred and on whole modules
    of the same parity as the symbol so that it sits in the middle."""
    side = max(1, int(modules * LOGO_SHARE))
    side += (modules - side) % 2
    return (margin + (modules - side) // 2) * scale, side * scale


def qr_image(url: str, style: QrStyle, image_format: ImageFormat, scale: int) -> bytes:
    """The QR code of `url` in `style`: an SVG document's bytes or a PNG's."""
    import segno  # only the routes that draw import it

    code = segno.make(url, error=style.error_level, boost_error=False)
    out = io.BytesIO()
    code.save(out, kind=image_format, scale=scale, border=style.margin, dark=style.dark, light=style.light)
    if style.logo is None:
        return out.getvalue()
    modules = int(code.symbol_size(scale=1, border=0)[0])
    start, side = _logo_box(modules, style.margin, scale)
    if image_format == "svg":
        return _svg_with_logo(out.getvalue().decode(), style, start, side).encode()
    return _png_with_logo(out.getvalue(), style.logo, style.light, start, side)


def _svg_with_logo(svg: str, style: QrStyle, start: int, side: int) -> str:
    assert style.logo is not None
    data = base64.b64encode(style.logo).decode()
    logo = (
        f'<rect x="{start}" y="{start}" width="{side}" height="{side}" fill="{style.light}"/>'
        f'<image x="{start}" y="{start}" width="{side}" height="{side}" href="data:image/png;base64,{data}"/>'
    )
    return svg.replace("</svg>", f"{logo}</svg>")


def _png_with_logo(png: bytes, logo: bytes, light: str, start: int, side: int) -> bytes:
    from PIL import Image  # only a PNG with a logo composes images

    with Image.open(io.BytesIO(png)) as drawn, Image.open(io.BytesIO(logo), formats=("PNG",)) as mark:
        canvas = drawn.convert("RGB")
        canvas.paste(Image.new("RGB", (side, side), light), (start, start))
        fitted = mark.convert("RGBA")
        fitted.thumbnail((side, side))
        offset = (start + (side - fitted.width) // 2, start + (side - fitted.height) // 2)
        canvas.paste(fitted, offset, fitted)
    out = io.BytesIO()
    canvas.save(out, format="PNG", optimize=True)
    return out.getvalue()
