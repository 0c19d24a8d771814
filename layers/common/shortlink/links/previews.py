"""Social preview cards: what a link-preview bot (Slack, WhatsApp, X, LinkedIn, ...) is shown
instead of the redirect, so that a shared short link unfolds into the owner's title, text and
image. People get the redirect as usual (see user_agents.is_link_preview)."""

from dataclasses import dataclass, fields

HEADERS = {
    "Content-Type": "text/html; charset=utf-8",
    "Cache-Control": "no-store",
    "Content-Security-Policy": "default-src 'none'; img-src *",
}


@dataclass(frozen=True)
class LinkPreview:
    """A link's card; `image` is a URL that passed the destination checks."""

    title: str | None = None
    description: str | None = None
    image: str | None = None

    def document(self) -> dict[str, str]:
        """The fields that are set, as the API shows and the table stores them."""
        return {field.name: value for field in fields(self) if (value := getattr(self, field.name))}


def preview_page(preview: LinkPreview, destination: str, robots: str | None) -> str:
    """The card as Open Graph and Twitter meta tags, every value escaped; a refresh and a link
    take a person who gets the page anyway on to `destination`."""
    import html  # here: only previews pay for html's entity tables on the redirect's cold start

    tags = []
    for name, value in (("title", preview.title), ("description", preview.description), ("image", preview.image)):
        if value:
            text = html.escape(value)
            tags.append(f'<meta property="og:{name}" content="{text}">')
            tags.append(f'<meta name="twitter:{name}" content="{text}">')
    card = "summary_large_image" if preview.image else "summary"
    tags.append(f'<meta name="twitter:card" content="{card}">')
    if robots:
        tags.append(f'<meta name="robots" content="{robots}">')
    target = html.escape(destination)
    title = html.escape(preview.title or destination)
    return (
        f"<!doctype html><html lang=en><meta charset=utf-8><title>{title}</title>\n"
        + "\n".join(tags)
        + f'\n<meta http-equiv="refresh" content="0; url={target}">\n<p><a href="{target}">{title}</a></p></html>'
    )
