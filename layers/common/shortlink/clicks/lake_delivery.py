"""Ingest's side of the click lake: the clicks of a batch's counted packs (counted now or found
counted before, as a redelivery is) sent as rows, a few records per batch. Packs whose rows could
not be delivered are offered again: the ledger skips their counting and the lake counts each click
id once, so a row is sent at least once and counted exactly once (docs/click-lake.md)."""

from collections.abc import Sequence

from shortlink.clicks.lake_rows import ClickLake, lake_records, lake_row
from shortlink.clicks.tally import PackPart
from shortlink.errors import StorageUnavailable


def undelivered(lake: ClickLake | None, recorded: Sequence[PackPart], region: str) -> list[str]:
    """Send the clicks of these parts of counted packs to the lake (None: the stack has none); the
    ids of the packs whose rows were not delivered (all of them when the lake refused)."""
    if lake is None or not recorded:
        return []
    from shortlink.clicks.bots import classifier_version  # loaded by the lake's ingest alone

    version = classifier_version()
    rows = (lake_row(click, region, version) for part in recorded for click in part.clicks)
    try:
        lake.deliver(lake_records(rows))
    except StorageUnavailable:
        return list(dict.fromkeys(part.pack_id for part in recorded))
    return []
