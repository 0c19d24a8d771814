"""The moments the API accepts: from the Unix epoch to shortly before the end of `datetime`'s
range, so that any of them can be shifted to UTC and moved by a day without overflowing."""

from datetime import UTC, datetime

EARLIEST = datetime(1970, 1, 1, tzinfo=UTC)
LATEST = datetime(9999, 12, 30, tzinfo=UTC)
RANGE_TEXT = "between 1970-01-01T00:00:00Z and 9999-12-30T00:00:00Z"


def in_utc(moment: datetime) -> datetime | None:
    """`moment` (which carries a zone) in UTC, or None outside the accepted range."""
    try:
        utc = moment.astimezone(UTC)
    except OverflowError:  # year 1 at +01:00, year 9999 at -01:00
        return None
    return utc if EARLIEST <= utc <= LATEST else None
