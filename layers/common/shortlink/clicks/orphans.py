"""Orphan visits as counters: follows that found no live link, counted per UTC day and outcome,
exactly once per pack as clicks are (they ride in the same parts, shortlink.clicks.tally).

A known link's orphan visits (not yet valid, deleted, expired, used up) count in that link's
day; every orphan visit also counts stack-wide, in the day of STACK_ORPHANS, a pseudo-code no
code can equal (codes are [A-Za-z0-9_-]). There each attempted unknown code has a counter of
its own, for the first MAX_ORPHAN_CODES codes of a day (the click-stats store keeps the bound);
the rest count under `(other)`, so a flood of made-up codes cannot grow the item.
"""

from collections import Counter
from collections.abc import Collection, Iterable
from datetime import datetime

from shortlink.clicks.events import HOUR_FORMAT, OVERFLOW_ORPHAN_CODE, OrphanVisit
from shortlink.links.model import is_possible_key

STACK_ORPHANS = "#orphans"
ORPHANS = "orphans"  # a day's orphan visits, all outcomes
UNKNOWN_OUTCOME = "unknown"
LINK_OUTCOMES = ("not_yet_valid", "deleted", "expired", "used_up")  # what a link's stats show
ROOT_OUTCOME = "root"  # a visit of a short domain's root (`GET /`): stack-wide only
OUTCOMES = (UNKNOWN_OUTCOME, *LINK_OUTCOMES, ROOT_OUTCOME)
MAX_ORPHAN_CODES = 100
# An orphan visit knows only its hour; a part of orphan visits alone is recorded in one of the
# hour's ledger windows chosen by its pack's digest, so that a flood spreads over the hour.
WINDOWS_PER_HOUR = 360


def outcome_counter(outcome: str) -> str:
    """A day's orphan visits of one outcome, e.g. `o#expired`."""
    return f"o#{outcome}"


def attempted_counter(code: str) -> str:
    """A day's visits of one unknown code, e.g. `u#nosuch`."""
    return f"u#{code}"


def orphan_day(orphan: OrphanVisit) -> str:
    return orphan.hour[:10]


def orphan_hour_start(orphan: OrphanVisit) -> int:
    """The orphan visit's hour as a Unix time (UTC)."""
    return int(datetime.strptime(orphan.hour + "+0000", HOUR_FORMAT + "%z").timestamp())


def counted_under(orphan: OrphanVisit) -> list[str]:
    """The codes whose day counts this orphan visit: the stack's, and its link's if it has one."""
    if orphan.outcome != UNKNOWN_OUTCOME and is_possible_key(orphan.code):  # a domain's root has no code
        return [STACK_ORPHANS, orphan.code]
    return [STACK_ORPHANS]


def attempted_codes(orphans: Iterable[OrphanVisit]) -> Counter[str]:
    """Visits per attempted unknown code (the redirect's own overflow bucket left out)."""
    attempts: Counter[str] = Counter()
    for orphan in orphans:
        if orphan.outcome == UNKNOWN_OUTCOME and orphan.code != OVERFLOW_ORPHAN_CODE:
            attempts[orphan.code] += orphan.count
    return attempts


def orphan_increments(orphans: Iterable[OrphanVisit], kept_codes: Collection[str]) -> Counter[str]:
    """What these orphan visits add to a day's counters; unknown codes outside `kept_codes`
    count under `(other)`."""
    counts: Counter[str] = Counter()
    for orphan in orphans:
        counts[ORPHANS] += orphan.count
        counts[outcome_counter(orphan.outcome)] += orphan.count
        if orphan.outcome == UNKNOWN_OUTCOME:
            code = orphan.code if orphan.code in kept_codes else OVERFLOW_ORPHAN_CODE
            counts[attempted_counter(code)] += orphan.count
    return counts


def is_orphan_counter(name: str) -> bool:
    """Whether a day's counter counts orphan visits (`orphans`, `o#…`, `u#…`), not clicks."""
    return name == ORPHANS or name.startswith((outcome_counter(""), attempted_counter("")))


def link_orphans(counters: Counter[str]) -> dict[str, int]:
    """A link's orphan visits per outcome, every outcome named (0 when none)."""
    return {outcome: counters[outcome_counter(outcome)] for outcome in LINK_OUTCOMES}


def top_attempted(counters: Counter[str], top: int = MAX_ORPHAN_CODES) -> list[tuple[str, int]]:
    """The most-attempted unknown codes, most first, the rest summed as `(other)` at the end."""
    prefix = attempted_counter("")
    attempts = Counter({name[len(prefix) :]: n for name, n in counters.items() if name.startswith(prefix) and n})
    other = attempts.pop(OVERFLOW_ORPHAN_CODE, 0)
    ranked = sorted(attempts.items(), key=lambda entry: (-entry[1], entry[0]))
    other += sum(count for _, count in ranked[top:])
    return ranked[:top] + ([(OVERFLOW_ORPHAN_CODE, other)] if other else [])
