"""What a batch of clicks adds to its links' owners: each account's day, and each of its tags'.

An account (an API key's links) and a tag of it are *subjects* counted as a link is
(shortlink.click_tally, adapters/dynamodb_click_stats): a pack's clicks of one subject and day
form a part, recorded in that subject's own ledger with its counters, so a redelivered or
re-run pack is counted once per subject however often it comes, and a busy account turns hot
as a busy link does. A click counts for its link's owner and tags *at click time* (the redirect
says them; shortlink.clicks.LinkOwner): retagging a link moves none of its past clicks.

An account's day also counts its links (`lk#<code>`), bounded: the day's first TOP_LINKS links
(as this ingest environment knows the item) have a counter each, and so do up to TOP_LINKS more
whose own day turned hot (a link going viral late in a busy day is still ranked, from then on);
others count together under OTHER_LINKS. The item stays a few KB whatever the account's links.
"""

from collections.abc import Iterable, Set
from dataclasses import replace

from shortlink.click_tally import LINK_KEY, PackPart, parts_per_subject_day
from shortlink.clicks import ClickEvent, ClickPack

# Subjects share the click-stats table's partition key with codes, under names no code can
# have (codes are [A-Za-z0-9_-]): `key~<key id>`, `key~<key id>~tag~<tag>`.
ACCOUNT_PREFIX = "key~"
TAG_INFIX = "~tag~"
TOP_LINKS = 100
OTHER_LINKS = "(other)"


def account_subject(owner: str, tag: str | None = None) -> str:
    """The subject of an owner's links, or of those with `tag`."""
    return f"{ACCOUNT_PREFIX}{owner}" if tag is None else f"{ACCOUNT_PREFIX}{owner}{TAG_INFIX}{tag}"


def account_subjects(click: ClickEvent) -> tuple[str, ...]:
    """The account and tags a click counts for (none for a click without an owner)."""
    if not click.owner:
        return ()
    return (account_subject(click.owner), *(account_subject(click.owner, tag) for tag in click.tags))


def parts_per_account_day(packs: Iterable[ClickPack]) -> dict[tuple[str, str], dict[str, PackPart]]:
    """A batch's parts per (subject, day), one per pack id, as parts_per_link_day for links."""
    return parts_per_subject_day(packs, account_subjects)


class LinkSlots:
    """Which links of one account day have a counter of their own."""

    def __init__(self, counter_names: Iterable[str]) -> None:
        prefix = f"{LINK_KEY}#"
        self.codes = {name.removeprefix(prefix) for name in counter_names if name.startswith(prefix)}

    def slot(self, code: str, hot: bool) -> str:
        """The link's counter's name: its code while there is room (more of it for a link
        whose day is `hot`), else OTHER_LINKS."""
        if code not in self.codes and len(self.codes) < TOP_LINKS * (1 + hot):
            self.codes.add(code)
        return code if code in self.codes else OTHER_LINKS

    def slotted(self, part: PackPart, hot_links: Set[str]) -> PackPart:
        """The part with each click named by its link's counter (its ledger entry unchanged)."""
        clicks = tuple(replace(click, code=self.slot(click.code, click.code in hot_links)) for click in part.clicks)
        return PackPart(part.pack_id, clicks)
