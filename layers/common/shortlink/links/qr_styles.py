"""A QR code's style (colours, quiet zone, a logo in the centre) and the rules that keep a styled
code scannable: enough contrast, dark modules darker than the background, a quiet zone a reader
finds, and a logo small enough for error correction H to restore what it hides."""

import re
from dataclasses import dataclass

from shortlink.errors import InvalidLinkOption

COLOUR = re.compile(r"#[0-9a-fA-F]{6}")
# WCAG's AA ratio: cameras read codes of lower contrast badly under shop light or on a dim screen.
MIN_CONTRAST = 4.5
MIN_MARGIN, MAX_MARGIN = 2, 10  # modules: readers need a quiet zone (the standard asks for 4)
# H restores up to 30 % of the codewords: a logo a fifth of the side wide (4 % of the area, with
# its light pad) leaves that budget mostly for wear and glare.
LOGO_SHARE = 0.2
MAX_LOGO_BYTES = 64 * 1024
MAX_LOGO_SIDE = 1024  # pixels of an uploaded logo, checked before it is decoded
STORED_LOGO_SIDE = 256


@dataclass(frozen=True)
class QrStyle:
    """How a link's QR code is drawn; `logo` is a PNG as normalised_logo made it."""

    dark: str = "#000000"
    light: str = "#ffffff"
    margin: int = 4
    logo: bytes | None = None

    @property
    def error_level(self) -> str:
        """M (15 % restorable) without a logo, H (30 %) with one, which hides modules."""
        return "h" if self.logo else "m"


DEFAULT_STYLE = QrStyle()


def relative_luminance(colour: str) -> float:
    """WCAG 2's relative luminance of a #rrggbb colour (0 black, 1 white)."""
    channels = [int(colour[index : index + 2], 16) / 255 for index in (1, 3, 5)]
    linear = [value / 12.92 if value <= 0.04045 else ((value + 0.055) / 1.055) ** 2.4 for value in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast_ratio(dark: str, light: str) -> float:
    """WCAG 2's contrast ratio of two colours, from 1 (same) to 21 (black on white)."""
    first, second = sorted((relative_luminance(dark), relative_luminance(light)), reverse=True)
    return (first + 0.05) / (second + 0.05)


def qr_style(dark: str, light: str, margin: int, logo: bytes | None = None) -> QrStyle:
    """The style if it keeps the code scannable; else InvalidLinkOption naming the field and the rule."""
    for field, colour in (("dark", dark), ("light", light)):
        if not COLOUR.fullmatch(colour):
            raise InvalidLinkOption(field, f"{field} is a colour as #rrggbb, such as #1a2b3c")
    if relative_luminance(dark) >= relative_luminance(light):
        raise InvalidLinkOption("dark", "dark must be darker than light: many readers miss inverted codes")
    ratio = contrast_ratio(dark, light)
    if ratio < MIN_CONTRAST:
        raise InvalidLinkOption(
            "light", f"dark and light contrast {ratio:.1f}:1, under the {MIN_CONTRAST}:1 a reader needs"
        )
    if isinstance(margin, bool) or not MIN_MARGIN <= margin <= MAX_MARGIN:
        raise InvalidLinkOption("margin", f"margin is {MIN_MARGIN} to {MAX_MARGIN} modules (the quiet zone)")
    return QrStyle(dark.lower(), light.lower(), margin, logo)
