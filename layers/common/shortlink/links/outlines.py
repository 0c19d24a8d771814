"""A workspace's links as the console's list finds, filters and orders them over its newest
links at once: each link's outline (what the search, the filters and the orders read, never its
destination), then the full links of the one page shown."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

Order = Literal["newest", "clicks", "title"]
ORDERS: tuple[Order, ...] = ("newest", "clicks", "title")


@dataclass(frozen=True)
class LinkOutline:
    """What the list reads of each of the newest links (newest first: the order of the store's
    index): who it is, its title, tags, campaign, domain ("" the default) and whether it is deleted."""

    key: str
    code: str
    domain: str
    title: str | None = None
    tags: tuple[str, ...] = ()
    campaign: str | None = None
    deleted: bool = False


@dataclass(frozen=True)
class OutlineFilter:
    """The list's filters: a code or words of a title (`text`, any case), a tag, a domain (None:
    all; "" the default) and a UTM campaign; empty ones keep every link."""

    text: str = ""
    tag: str = ""
    domain: str | None = None
    campaign: str = ""

    def keeps(self, outline: LinkOutline) -> bool:
        found = not self.text or outline.code == self.text or self.text.casefold() in (outline.title or "").casefold()
        tagged = not self.tag or self.tag in outline.tags
        in_campaign = not self.campaign or outline.campaign == self.campaign
        return found and tagged and in_campaign and self.domain in (None, outline.domain)


def ordered(outlines: Sequence[LinkOutline], order: Order, clicks: Mapping[str, int]) -> list[LinkOutline]:
    """The outlines (newest first, as read) in `order`: newest first, most people's clicks over
    7 days first (`clicks` by key; none counted: 0), or by title (any case, untitled last);
    newest first among equals (the sorts are stable)."""
    if order == "clicks":
        listed = sorted(outlines, key=lambda outline: -clicks.get(outline.key, 0))
    elif order == "title":
        listed = sorted(outlines, key=lambda outline: (outline.title is None, (outline.title or "").casefold()))
    else:
        listed = list(outlines)
    return listed
