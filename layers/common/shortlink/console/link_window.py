"""The links list over the workspace's newest WINDOW links at once: a search, the filters and an
order (most people's clicks over 7 days, title, newest) apply to all of them, not only to a page.
Their outlines come in one Query; the one page shown is read in full in one BatchGetItem, and its
glances in one more (seven_day_people). Past its bound the list says so: older links are reached
by the newest-first pages, which have no bound.

The clicks order reads the day items of only the links and days the account's days name as
clicked (glances.clicked_links), among all WINDOW; where those days cannot tell (over 100 clicked
links on a day), all 7 days of every link, and then among the newest UNNAMED_WINDOW only: 7,000
day items would take seconds (`python -m tools.developers.bench console`)."""

from dataclasses import dataclass

from shortlink.console.glances import clicked_links, seven_day_people
from shortlink.errors import LinkNotFound
from shortlink.links.model import Link
from shortlink.links.outlines import LinkOutline, Order, OutlineFilter, ordered
from shortlink.links.use_cases import owned_link
from shortlink.people.actors import Actor
from shortlink.wiring import link_lists, link_repository

WINDOW = 1000
UNNAMED_WINDOW = 200
PAGE_SIZE = 25


@dataclass(frozen=True)
class WindowPage:
    """One page of the links the filters keep among the newest WINDOW, in the order asked."""

    links: list[Link]
    glances: dict[str, list[int]]  # by key: the page's links' people per day (with stats:read)
    found: int  # how many links the filters keep
    has_next: bool
    bound: int  # how many of the newest links the search and the order cover
    beyond: bool  # the workspace has links older than the bound


def outline_of(link: Link) -> LinkOutline:
    campaign = link.utm.campaign if link.utm is not None else None
    return LinkOutline(link.key, link.code, link.domain, link.title, link.tags, campaign, link.deleted_at is not None)


def older_named(actor: Actor, filters: OutlineFilter, kept: list[LinkOutline]) -> list[LinkOutline]:
    """The link whose code the search names, where the window holds only the newest links and
    not that one (one GetItem)."""
    if not filters.text or any(outline.code == filters.text for outline in kept):
        return []
    try:
        found = outline_of(owned_link(filters.text, actor.owner, link_repository()))
    except LinkNotFound:
        return []
    return [found] if filters.keeps(found) else []


def window_page(actor: Actor, filters: OutlineFilter, order: Order, page: int) -> WindowPage:
    """Page `page` (from 1) of the actor's links the filters keep, among their newest WINDOW (the
    clicks order: UNNAMED_WINDOW, where the account's days do not name the clicked links), in `order`."""
    by_clicks = order == "clicks" and actor.allows("stats:read")
    clicked = clicked_links(actor.owner) if by_clicks else {}
    bound = UNNAMED_WINDOW if clicked is None else WINDOW
    outlines, beyond = link_lists().outlines_for_owner(actor.owner, bound)
    kept = [outline for outline in outlines if filters.keeps(outline)]
    if beyond:
        kept = older_named(actor, filters, kept) + kept
    weighed = [outline.key for outline in kept if clicked is None or outline.key in clicked] if by_clicks else []
    glances = seven_day_people(weighed, clicked)  # people's clicks per day, of the links the order weighs
    listed = ordered(kept, order, {key: sum(values) for key, values in glances.items()})
    shown = listed[(page - 1) * PAGE_SIZE : page * PAGE_SIZE]
    links = link_lists().links_of([outline.key for outline in shown])
    if actor.allows("stats:read"):  # the page's glances not read for the order yet
        glances |= seven_day_people([link.key for link in links if link.key not in glances])
    return WindowPage(links, glances, len(kept), page * PAGE_SIZE < len(listed), bound, beyond)
