"""Suspected duplicates: a visitor (the same daily visitor hash) following the same link again
within a short window. Such a click is still counted in `clicks`, and flagged, so the stats show
`repeat_clicks` beside them: a double tap, a reload or an app that opens a link twice.

Remembered per redirect environment, after the response: the follows one environment served.
Two follows of one visitor served by two environments at once are not recognised as repeats.
"""

from collections import OrderedDict

# Follows remembered at most: the oldest are forgotten first (about 100 bytes each).
MAX_REMEMBERED = 10_000


class RecentFollows:
    """The last follow of each (link, visitor) within `window_seconds`."""

    def __init__(self, window_seconds: float, max_remembered: int = MAX_REMEMBERED) -> None:
        self.window_seconds = window_seconds
        self._max = max_remembered
        self._last: OrderedDict[tuple[str, str], float] = OrderedDict()

    def is_repeat(self, code: str, visitor: str, at_epoch: float) -> bool:
        """Whether `visitor` followed `code` within the window before `at_epoch`; remembers this follow."""
        if not visitor or self.window_seconds <= 0:
            return False
        key = (code, visitor)
        last = self._last.pop(key, None)
        self._last[key] = at_epoch
        while len(self._last) > self._max:
            self._last.popitem(last=False)
        return last is not None and 0 <= at_epoch - last <= self.window_seconds
