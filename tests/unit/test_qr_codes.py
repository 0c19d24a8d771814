"""Styled QR codes: every style the project draws decodes to the short URL (PNG, and SVG
rasterised), and a style or logo that would not scan, or would not decode safely, is refused
naming its rule."""

import io
import zlib

import pytest
from PIL import Image

from shortlink.errors import InvalidLinkOption
from shortlink.links.qr_images import normalised_logo, qr_image
from shortlink.links.qr_styles import DEFAULT_STYLE, MAX_LOGO_BYTES, contrast_ratio, qr_style
from tests.qr_decoding import decoded, logo_file

SHORT_URL = "https://sho.rt/Ab3xYz9"
MEDIA_TYPES = {"svg": "image/svg+xml", "png": "image/png"}


def styles():
    png_logo, jpeg_logo = normalised_logo(logo_file("PNG")), normalised_logo(logo_file("JPEG", (64, 64)))
    return {
        "plain": DEFAULT_STYLE,
        "navy on cream, narrow quiet zone": qr_style("#1a237e", "#fff8e1", 2),
        "dark green, wide quiet zone": qr_style("#1b5e20", "#ffffff", 10),
        "png logo": qr_style("#000000", "#ffffff", 4, png_logo),
        "jpeg logo, brand colours": qr_style("#4a148c", "#f3e5f5", 2, jpeg_logo),
    }


@pytest.mark.parametrize("image_format", ["svg", "png"])
def test_every_styled_code_decodes_to_the_short_url(image_format):
    # Given each style the tests make (colours, quiet zones, logos), at two scales
    for name, style in styles().items():
        for scale in (4, 8):
            # When it is drawn, Then a reader finds the short URL in it, and nothing else
            image = qr_image(SHORT_URL, style, image_format, scale)
            assert decoded(image, MEDIA_TYPES[image_format]) == [SHORT_URL], (name, scale)


def test_a_logo_raises_error_correction_to_h_and_stays_within_what_h_restores():
    logo = normalised_logo(logo_file())
    assert qr_style("#000000", "#ffffff", 4).error_level == "m"
    styled = qr_style("#000000", "#ffffff", 4, logo)
    assert styled.error_level == "h"
    png = qr_image(SHORT_URL, styled, "png", 4)
    with Image.open(io.BytesIO(png)) as picture:
        symbol = picture.width - 2 * 4 * 4  # pixels, without the quiet zone
        box = Image.eval(picture.convert("RGB"), lambda value: 255 if 100 < value < 250 else 0).getbbox()
    # The logo (the red of logo_file) is centred and at most a fifth of the side: 4 % of the area.
    assert box is not None
    width, height = box[2] - box[0], box[3] - box[1]
    assert max(width, height) <= symbol / 5
    assert abs((box[0] + box[2]) / 2 - picture.width / 2) <= 4


@pytest.mark.parametrize(
    ("dark", "light", "margin", "field", "rule"),
    [
        ("#ffffff", "#000000", 4, "dark", "darker than light"),
        ("#777777", "#999999", 4, "light", "4.5:1"),
        ("#ff0000", "#ffffff", 4, "light", "4.5:1"),
        ("black", "#ffffff", 4, "dark", "#rrggbb"),
        ("#000000", "#fff", 4, "light", "#rrggbb"),
        ("#000000", "#ffffff", 1, "margin", "2 to 10"),
        ("#000000", "#ffffff", 11, "margin", "2 to 10"),
    ],
)
def test_a_style_that_would_not_scan_is_refused_naming_the_rule(dark, light, margin, field, rule):
    with pytest.raises(InvalidLinkOption) as refused:
        qr_style(dark, light, margin)
    assert refused.value.field == field
    assert rule in str(refused.value)


def test_contrast_is_wcags_ratio():
    assert contrast_ratio("#000000", "#ffffff") == pytest.approx(21)
    assert contrast_ratio("#ffffff", "#ffffff") == pytest.approx(1)
    assert contrast_ratio("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)  # just under AA


def bomb_png(side: int) -> bytes:
    """A PNG whose header claims `side` pixels a side in a few hundred bytes."""
    picture = Image.new("1", (side, side))
    out = io.BytesIO()
    picture.save(out, format="PNG")
    return out.getvalue()


@pytest.mark.parametrize(
    ("upload", "rule"),
    [
        (b"\x89PNG\r\n\x1a\n" + b"\0" * 100, "decodes"),
        (b"GIF89a" + b"\0" * 100, "PNG or JPEG"),
        (logo_file("GIF"), "PNG or JPEG"),
        (b"<svg xmlns='http://www.w3.org/2000/svg'/>", "PNG or JPEG"),
        (bomb_png(4000), "1024 pixels a side"),
        (b"\xff\xd8\xff" + zlib.compress(b"x" * 10) + b"\0" * (MAX_LOGO_BYTES), "64 KB"),
    ],
)
def test_a_logo_that_is_too_large_of_another_kind_or_broken_is_refused(upload, rule):
    with pytest.raises(InvalidLinkOption) as refused:
        normalised_logo(upload)
    assert refused.value.field == "logo"
    assert rule in str(refused.value)


def test_a_logo_is_kept_as_a_small_png():
    kept = normalised_logo(logo_file("JPEG", (1000, 500)))
    with Image.open(io.BytesIO(kept)) as picture:
        assert (picture.format, picture.size) == ("PNG", (256, 128))
