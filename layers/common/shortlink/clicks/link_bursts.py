"""A timing signal of email and security scanners: several distinct links followed by one visitor
(the same daily visitor hash: address and User-Agent) within a second. A scanner opens every link
of a message at once, from one machine; a person reads, then taps one link, and their next tap on
another link comes seconds later. Address and User-Agent together, not the address alone: many
people behind one office's address may each tap a link of one newsletter in the same second.

Remembered per redirect environment, after the response, as repeats are (shortlink.clicks.repeats):
no store, no AWS call, nothing kept past the window. A burst spread over several environments at
once is seen by each in part, and the links before the signal fires count as they were classified.
"""

from collections import OrderedDict

# Visitors remembered at most: the oldest are forgotten first (a few hundred bytes each).
MAX_REMEMBERED = 10_000


class LinkBursts:
    """Each visitor's follows within the last `window_seconds`; `links` distinct ones are a burst."""

    def __init__(self, window_seconds: float, links: int, max_remembered: int = MAX_REMEMBERED) -> None:
        self.window_seconds = window_seconds
        self.links = links
        self._max = max_remembered
        self._recent: OrderedDict[str, dict[str, float]] = OrderedDict()

    def is_burst(self, visitor: str, code: str, at_epoch: float) -> bool:
        """Whether this follow makes `links` distinct links of `visitor` within the window; remembers it."""
        if not visitor:
            return False
        followed = self._recent.pop(visitor, {})
        kept = {link: at for link, at in followed.items() if 0 <= at_epoch - at <= self.window_seconds}
        kept[code] = at_epoch
        self._recent[visitor] = kept
        while len(self._recent) > self._max:
            self._recent.popitem(last=False)
        return len(kept) >= self.links
