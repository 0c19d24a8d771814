"""What a phone's reader would see in a QR code the project drew: its PNG, or its SVG rasterised
(resvg), decoded by zxing-cpp."""

import io

import resvg_py
import zxingcpp
from PIL import Image


def decoded(image: bytes, media_type: str) -> list[str]:
    """The texts a reader finds in `image` (image/png or image/svg+xml)."""
    if media_type == "image/svg+xml":
        image = bytes(resvg_py.svg_to_bytes(svg_string=image.decode()))
    with Image.open(io.BytesIO(image)) as picture:
        return [found.text for found in zxingcpp.read_barcodes(picture.convert("RGB"))]


def logo_file(kind: str = "PNG", size: tuple[int, int] = (300, 200)) -> bytes:
    """A small logo as an uploader sends it: a coloured block with a transparent corner (PNG)."""
    mode = "RGBA" if kind == "PNG" else "RGB"
    picture = Image.new(mode, size, "#c62828")
    if mode == "RGBA":
        picture.paste((0, 0, 0, 0), (0, 0, size[0] // 3, size[1] // 3))
    out = io.BytesIO()
    picture.save(out, format=kind)
    return out.getvalue()
