"""The redirect of a link as API Gateway returns it: its Cache-Control, the ready-made
response of a plain link, built once when the link enters the cache, and the preview card a
link-preview bot gets instead.

Most links are plain (Link.is_plain), and a cached plain link is answered by handing back this
one response (with its destination, which the click records): the smallest hot path there is (see
functions/redirect/app.py). The visitor's query changes the answer too, so the redirect serves it
only to a follow without one. Its Location carries the link's UTM fields.
"""

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from shortlink.links.destinations import destination
from shortlink.links.model import Link

if TYPE_CHECKING:  # a preview card's page loads only when a link-preview bot asks for one
    from shortlink.links.previews import LinkPreview
    from shortlink.web.events import EventShape

PERMANENT_REDIRECT_MAX_AGE = 3600
# What a follow of a plain link is answered: where it goes (its click's campaign is read from it)
# and the response, as the redirect's full walk would make them; and that response in the shape
# of each other front it was followed through, made at its first hit there (follows.follow).
PlainRedirect = tuple[str, dict[str, Any], dict["EventShape", dict[str, Any]]]
# Search engines index the destination, not the short link, unless its owner made it crawlable.
NOINDEX = {"X-Robots-Tag": "noindex"}


def cache_control(link: Link, status: int, now: datetime | None = None) -> str:
    """302/303/307: no-store, so every click reaches us and edits apply at once. 301/308: the
    owner chose a permanent redirect, which browsers and the edge may cache for an hour (never
    past the link's expiry); repeat visits from a cache are not counted. A link whose answer
    depends on the visitor (rules) or on a check (password, max_clicks) is never cached."""
    if status in (302, 303, 307) or link.rules is not None or link.max_clicks is not None:
        return "no-store"
    max_age = PERMANENT_REDIRECT_MAX_AGE
    if link.expires_at is not None:
        remaining = (link.expires_at - (now or datetime.now(UTC))).total_seconds()
        max_age = min(max_age, max(0, int(remaining)))
    return f"public, max-age={max_age}"


def redirect_response(link: Link, status: int, url: str, now: datetime | None = None) -> dict[str, Any]:
    headers = {"Location": url, "Cache-Control": cache_control(link, status, now)}
    if not link.crawlable:
        headers.update(NOINDEX)
    return {"statusCode": status, "headers": headers, "body": ""}


def plain_redirect(link: Link | None) -> PlainRedirect | None:
    """The destination of a GET of `link` without a query and the response to it, when it is
    plain (none yet in another front's shape); else None. The same dict answers every follow
    while the link is cached: nothing may change it after it is returned."""
    if link is None or not link.is_plain:
        return None
    url = destination(link.url, link.utm, "")
    return url, redirect_response(link, link.redirect_type, url), {}


def preview_card(link: Link, preview: "LinkPreview", url: str) -> dict[str, Any]:
    """What a link-preview bot gets instead of the redirect: the link's card (shortlink.links.previews)."""
    from shortlink.links.previews import HEADERS, preview_page

    robots = None if link.crawlable else "noindex"
    headers = HEADERS if link.crawlable else {**HEADERS, **NOINDEX}
    return {"statusCode": 200, "headers": headers, "body": preview_page(preview, url, robots)}
