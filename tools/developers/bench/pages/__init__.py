"""The pages of docs/ generated from the bench's JSON (performance.md by `make bench`, cost.md by
`make cost`): their Markdown templates and the filters that format figures in them."""

from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined


def microseconds(value: float) -> str:
    """A latency as the pages show it: two decimals below 100 µs, whole microseconds above."""
    return f"{value:.2f}" if value < 100 else f"{round(value):,}"


def whole(value: float) -> str:
    return f"{round(value):,}"


def pages() -> Environment:
    """Markdown templates: nothing is HTML-escaped, and a figure the JSON lacks fails the page."""
    environment = Environment(  # noqa: S701 - Markdown pages, not HTML
        loader=FileSystemLoader(Path(__file__).parent), undefined=StrictUndefined, keep_trailing_newline=True
    )
    environment.filters.update(
        us=microseconds, ms=lambda us: f"{us / 1000:.2f}", count=whole, dollars=lambda value: f"${value:.2f}"
    )
    return environment


def write_between_markers(page: Path, start: str, end: str, text: str) -> Path:
    """Replace what lies between a page's two marker lines with `text` (a table a run wrote)."""
    before, _, rest = page.read_text().partition(start)
    _, _, after = rest.partition(end)
    page.write_text(f"{before}{start}\n{text}\n{end}{after}")
    return page
