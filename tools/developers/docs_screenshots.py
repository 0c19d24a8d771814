"""A mkdocs hook (mkdocs.yml `hooks:`): where a page says `<!-- console screenshots -->`, the
screenshots tools.developers.screenshots took (docs/screenshots/, git-ignored build output), or,
on a clone without them, how to take them. `mkdocs build --strict` passes either way."""

from pathlib import Path
from typing import Any

MARKER = "<!-- console screenshots -->"
SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
CAPTIONS = {
    "links": "The links list: each link's people's clicks over 7 days, sortable",
    "link": "A link's page: settings, styled QR code, the series with breakdowns and the world map",
    "overview": "The account overview",
    "keys": "API keys",
    "audit": "The audit log",
}
MISSING = (
    "Screenshots are build output, not part of the repository: with `make dev` running, "
    "`python -m tools.developers.screenshots --api-key sl_...` (the key `make dev` prints) takes them into "
    "`docs/screenshots/`, and they show here on the next `make docs`."
)


def on_page_markdown(markdown: str, **_: Any) -> str:
    """The page with its marker replaced by the screenshots there are, or by MISSING."""
    if MARKER not in markdown:
        return markdown
    taken = [name for name in CAPTIONS if (SCREENSHOTS / f"{name}.png").is_file()]
    shown = "\n\n".join(f"![{CAPTIONS[name]}](screenshots/{name}.png)" for name in taken)
    return markdown.replace(MARKER, shown or MISSING)
