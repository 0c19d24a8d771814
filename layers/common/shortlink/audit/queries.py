"""What a reader of the audit log asks for (a time range, a kind of target or one target, a page),
parsed from a request's query strings: each bad value is refused naming its parameter."""

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

from shortlink.accepted_moments import RANGE_TEXT, in_utc
from shortlink.audit.model import TARGET_KINDS, TargetKind
from shortlink.errors import ShortlinkError
from shortlink.numbers import NotAWholeNumber, whole_number

ExportFormat = Literal["json", "csv"]
FORMATS: tuple[ExportFormat, ...] = ("json", "csv")
DEFAULT_LIMIT = 100
MAX_LIMIT = 1000
MAX_CURSOR_LENGTH = 2048
MAX_TARGET_ID_LENGTH = 300
# Epoch milliseconds up to LATEST (year 9999): 14 digits at most.
MAX_EPOCH_MS = 253_402_128_000_000


class InvalidAuditQuery(ShortlinkError):
    """A query parameter of an audit read that cannot be accepted; names the parameter."""

    def __init__(self, parameter: str, message: str) -> None:
        super().__init__(f"{parameter}: {message}")
        self.parameter = parameter


@dataclass(frozen=True)
class AuditQuery:
    since: datetime | None = None  # inclusive
    until: datetime | None = None  # exclusive
    target_kind: TargetKind | None = None
    target_id: str | None = None  # with target_kind: that one target's entries
    limit: int = DEFAULT_LIMIT
    cursor: str | None = None


def moment(parameter: str, text: str) -> datetime:
    """A moment given as epoch milliseconds (ASCII digits) or ISO 8601 with a time zone."""
    if text.strip().isascii() and text.strip().isdigit():
        try:
            return datetime.fromtimestamp(whole_number(text, parameter, maximum=MAX_EPOCH_MS) / 1000, UTC)
        except NotAWholeNumber as error:
            raise InvalidAuditQuery(parameter, f"epoch milliseconds up to {MAX_EPOCH_MS}") from error
    try:
        parsed = datetime.fromisoformat(text.strip())
    except ValueError:
        parsed = None
    if parsed is None or parsed.tzinfo is None:
        raise InvalidAuditQuery(
            parameter, "must be ISO 8601 with a time zone (2026-12-01T00:00:00Z) or epoch milliseconds"
        )
    utc = in_utc(parsed)
    if utc is None:
        raise InvalidAuditQuery(parameter, f"must be {RANGE_TEXT}")
    return utc


def export_format(text: str | None) -> ExportFormat:
    if text is None or text == "":
        return "json"
    if text not in FORMATS:
        raise InvalidAuditQuery("format", f"must be one of {', '.join(FORMATS)}")
    return text


def audit_query(parameters: Mapping[str, str]) -> AuditQuery:
    """The query of `since`, `until`, `target`, `target_id`, `limit` and `cursor` (all optional)."""
    since = moment("since", parameters["since"]) if parameters.get("since") else None
    until = moment("until", parameters["until"]) if parameters.get("until") else None
    if since is not None and until is not None and until <= since:
        raise InvalidAuditQuery("until", "must be after since")
    kind = parameters.get("target") or None
    if kind is not None and kind not in TARGET_KINDS:
        raise InvalidAuditQuery("target", f"must be one of {', '.join(TARGET_KINDS)}")
    target_id = parameters.get("target_id") or None
    if target_id is not None and (kind is None or len(target_id) > MAX_TARGET_ID_LENGTH):
        raise InvalidAuditQuery("target_id", f"needs target, and at most {MAX_TARGET_ID_LENGTH} characters")
    limit = DEFAULT_LIMIT
    if parameters.get("limit"):
        try:
            limit = whole_number(parameters["limit"], "limit", minimum=1, maximum=MAX_LIMIT)
        except NotAWholeNumber as error:
            raise InvalidAuditQuery("limit", str(error).removeprefix("limit: ")) from None
    cursor = parameters.get("cursor") or None
    if cursor is not None and len(cursor) > MAX_CURSOR_LENGTH:
        raise InvalidAuditQuery("cursor", "is not one this API gave out")
    return AuditQuery(since, until, kind, target_id, limit, cursor)
