"""Bulk link work: which links a request selects (by their keys or by a filter), the one change
it makes to all of them (retag, set or clear the expiry, delete, restore, move to a domain), and
its bounds."""

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from shortlink.domains.model import split_key
from shortlink.errors import InvalidLinkOption, ShortlinkError
from shortlink.links.model import Link, LinkChanges
from shortlink.links.ports import LinkRepository

# Each link is written with its audit entry in one DynamoDB transaction of at most 100 items; a
# move writes up to four (the link at its new key, its slug's claim there, its old key, the entry).
MAX_BULK_CHANGES = 50
MAX_BULK_MOVES = 25
# A filter's search reads the workspace's links newest first: at most this many per request.
MAX_FILTER_READS = 1000
MAX_TAGS = 10  # as a link's create and edit allow
FILTER_PAGE = 100

BulkAction = Literal["retag", "set_expiry", "clear_expiry", "delete", "restore", "move"]


@dataclass(frozen=True)
class BulkChange:
    """The change made to every selected link."""

    action: BulkAction
    add_tags: tuple[str, ...] = ()
    remove_tags: tuple[str, ...] = ()
    expires_at: datetime | None = None
    domain: str | None = None  # a move's: "" the default domain, else a host name

    def of(self, link: Link) -> LinkChanges:
        """The edit of `link` a retag or an expiry makes (not a delete or a restore)."""
        if self.action == "set_expiry":
            return LinkChanges(expires_at=self.expires_at)
        if self.action == "clear_expiry":
            return LinkChanges(cleared=frozenset({"expires_at"}))
        kept = [tag for tag in link.tags if tag not in self.remove_tags]
        tags = (*kept, *(tag for tag in dict.fromkeys(self.add_tags) if tag not in kept))
        if len(tags) > MAX_TAGS:
            raise InvalidLinkOption("tags", f"tags: a link has at most {MAX_TAGS} tags ({len(tags)} after the retag)")
        return LinkChanges(tags=tags)


@dataclass(frozen=True)
class LinkFilter:
    """The links a filter selects: all its parts must hold (none given: refused by the door)."""

    tag: str | None = None
    domain: str | None = None  # "" the default domain, None any
    created_from: datetime | None = None  # inclusive
    created_before: datetime | None = None  # exclusive
    search: str | None = None  # in the code, the title or the destination, any case

    def holds_for(self, link: Link) -> bool:
        """Whether `link` is selected (the tag and the domain the store filters by as well)."""
        needle = (self.search or "").casefold()
        return (
            (self.tag is None or self.tag in link.tags)
            and (self.domain is None or link.domain == self.domain)
            and (self.created_from is None or link.created_at >= self.created_from)
            and (self.created_before is None or link.created_at < self.created_before)
            and (not needle or any(needle in text.casefold() for text in (link.code, link.title or "", link.url)))
        )


def _newest_first(links: LinkRepository, owner: str, selected: LinkFilter) -> Iterator[Link]:
    cursor: str | None = None
    read = 0
    while True:
        page, cursor = links.list_for_owner(owner, FILTER_PAGE, cursor, selected.tag, domain=selected.domain)
        for link in page:
            read += 1
            if read > MAX_FILTER_READS:
                message = f"filter: reads at most {MAX_FILTER_READS} links; narrow it by tag, domain or created range"
                raise InvalidLinkOption("filter", message)
            yield link
        if cursor is None:
            return


def selected_keys(links: LinkRepository, owner: str, selected: LinkFilter, deleted: bool) -> list[str]:
    """The keys of `owner`'s links the filter selects, deleted ones (for a restore) or the others;
    InvalidLinkOption naming the bound when more than MAX_BULK_CHANGES match."""
    keys: list[str] = []
    for link in _newest_first(links, owner, selected):
        if selected.created_from is not None and link.created_at < selected.created_from:
            break  # newest first: every later link is older still
        if (link.deleted_at is not None) == deleted and selected.holds_for(link):
            keys.append(link.key)
        if len(keys) > MAX_BULK_CHANGES:
            raise too_many(f"more than {MAX_BULK_CHANGES} links match the filter")
    return keys


def too_many(what: str, limit: int = MAX_BULK_CHANGES) -> InvalidLinkOption:
    change = "a move" if limit == MAX_BULK_MOVES else "a bulk change"
    return InvalidLinkOption("links", f"{what}: {change} takes at most {limit} links per request")


def checked_selection(keys: list[str], limit: int = MAX_BULK_CHANGES) -> list[str]:
    """The keys, each once, in order; refused when none or more than `limit`."""
    unique = list(dict.fromkeys(keys))
    if not unique:
        raise InvalidLinkOption("links", "links: select at least one link")
    if len(unique) > limit:
        raise too_many(f"{len(unique)} links selected", limit)
    return unique


@dataclass(frozen=True)
class LinkRefusal:
    """Why one selected link cannot be changed: the domain error its own change would raise."""

    key: str
    error: ShortlinkError

    @property
    def code(self) -> str:
        return split_key(self.key)[1]

    @property
    def domain(self) -> str:
        return split_key(self.key)[0]


class BulkRefused(ShortlinkError):
    """A bulk change that wrote nothing: each refused link and why."""

    def __init__(self, refusals: list[LinkRefusal]) -> None:
        super().__init__(f"{len(refusals)} of the selected links cannot be changed: nothing was written")
        self.refusals = refusals
