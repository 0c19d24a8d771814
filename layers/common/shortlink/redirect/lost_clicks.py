"""Clicks that could not be queued: one replayable log line each, which
`python -m tools.operators.replay_clicks` looks for."""

import json
import logging
from collections import Counter
from dataclasses import asdict, replace
from typing import TYPE_CHECKING, Any

from shortlink.domains.model import split_key
from shortlink.links.model import may_be_private

if TYPE_CHECKING:
    from shortlink.clicks.events import ClickPack

logger = logging.getLogger("shortlink.clicks")

# The marker of a click that could not be queued; `python -m tools.operators.replay_clicks` looks for it.
LOST_CLICK_EVENT = "click_not_queued"


def log_lost(packs: "list[ClickPack]") -> Counter[str]:
    """One replayable log line per click and orphan visit of each pack (a line per pack could
    exceed a log event's size), naming its pack: a replay re-forms the same pack, which ingest
    counts once even if the send did arrive. Returns the counts the lost clicks carried."""
    carried: Counter[str] = Counter()
    for pack in packs:
        for click in pack.clicks:
            carried.update(click.counts)
            # Without its counts: those are emitted here, a replay must not add them again.
            logged = json.loads(replace(click, counts={}).to_json())
            _log_lost(pack, "click", logged, click.code)
        for orphan in pack.orphans:
            _log_lost(pack, "orphan", asdict(orphan), orphan.code)
    return carried


def _log_lost(pack: "ClickPack", kind: str, record: dict[str, Any], code: str) -> None:
    # A private link's code is its capability: it is never logged, so such a click is lost
    # for good (the line still says one was, for the replay's report).
    entry = {kind: record} if not may_be_private(split_key(code)[1]) else {"unreplayable": kind}
    logger.error(json.dumps({"event": LOST_CLICK_EVENT, "pack": pack.pack_id, **entry}))
