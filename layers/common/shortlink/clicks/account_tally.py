"""Whose days a link's clicks also count in: its owner's account (an API key's links) and each
of its tags, *subjects* counted in the click-stats table as a link is (same day items, read by
the same code), by the stream aggregator (adapters/dynamodb/account_changes.py, functions/account_stats).

An account's day also counts its links (`lk#<code>`), bounded: the day's first TOP_LINKS links
(as this environment knows the item) have a counter each, and so do up to TOP_LINKS more whose
own day turned hot (a link going viral late in a busy day is still ranked, from then on);
others count together under OTHER_LINKS. The item stays a few KB whatever the account's links.
"""

from collections.abc import Iterable

from shortlink.clicks.tally import LINK_KEY

# Subjects share the click-stats table's partition key with codes, under names no code can
# have (codes are [A-Za-z0-9_-]): `key~<key id>`, `key~<key id>~tag~<tag>`.
ACCOUNT_PREFIX = "key~"
TAG_INFIX = "~tag~"
TOP_LINKS = 100
OTHER_LINKS = "(other)"


def account_subject(owner: str, tag: str | None = None) -> str:
    """The subject of an owner's links, or of those with `tag`."""
    return f"{ACCOUNT_PREFIX}{owner}" if tag is None else f"{ACCOUNT_PREFIX}{owner}{TAG_INFIX}{tag}"


def account_subjects(owner: str, tags: Iterable[str]) -> tuple[str, ...]:
    """The account and tags a link's clicks count for."""
    return (account_subject(owner), *(account_subject(owner, tag) for tag in dict.fromkeys(tags)))


def is_subject(partition: str) -> bool:
    return partition.startswith(ACCOUNT_PREFIX)


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
