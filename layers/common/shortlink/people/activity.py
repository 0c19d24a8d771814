"""When a member was last active: the hour of their latest request, written at most once an
hour per member (one conditional update), so that a busy member costs no write per request."""

import contextlib
from datetime import datetime

from shortlink.errors import StorageUnavailable
from shortlink.people.model import Membership
from shortlink.people.ports import Memberships


def activity_hour(now: datetime) -> datetime:
    """The hour `now` falls in: what "last active" records."""
    return now.replace(minute=0, second=0, microsecond=0)


def note_activity(memberships: Memberships, membership: Membership, now: datetime) -> None:
    """Record this hour as the member's last activity, unless it is recorded already (then no
    write at all)."""
    hour = activity_hour(now)
    if membership.last_active_at is None or membership.last_active_at < hour:
        with contextlib.suppress(
            StorageUnavailable
        ):  # a busy table must not refuse a member: the next request writes it
            memberships.mark_active(membership.workspace_id, membership.subject, hour)
