"""What a batch of the click-stats table's stream records (NEW_AND_OLD_IMAGES, as Lambda hands
them over) adds to accounts' and tags' days: no AWS call here, only the reading of the images.

A link's day item (`c#<day>#<region>`) names its owner and tags (set by ingest with its
counters); a change adds the difference of every counter between its old and new image to each
of those subjects' same day, and its link's clicks to the account's `lk#<code>`. Unique-visitor
sketches are merged, never subtracted: a link's sketch (`s#`, `t#` items) raises the subjects'
sketch of the same bucket, and a cool day's inline sketch elements (`visitors@14`) raise their
hour's and day's. Records of other regions' items (global tables replicate them into this
stream) are left to their own region's aggregator; the subjects' own items, ledgers and
removals change nothing.
"""

import base64
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from shortlink.adapters.dynamodb.click_stats_table import (
    COUNTERS,
    DAY_SKETCH,
    HOUR_SKETCH,
    HOURS_PARTITION,
    day_key,
    hour_sketch_key,
    hours_partition,
)
from shortlink.clicks.account_tally import account_subjects, is_subject
from shortlink.clicks.orphans import is_orphan_counter
from shortlink.clicks.unique_visitors import REGISTERS, merge_registers, registers_of, unpacked_registers

# Stream sequence numbers are decimal strings of up to 40 digits (of varying length): padded,
# they compare as numbers do.
SEQUENCE_DIGITS = 40
VISITORS = "visitors@"


def padded_sequence(sequence: str) -> str:
    return sequence.zfill(SEQUENCE_DIGITS)


@dataclass(frozen=True)
class CounterChange:
    """One link day's change, as it adds to one subject's day."""

    sequence: str  # padded
    code: str
    hot: bool  # the link's day is counted hot (ranked among more links)
    counts: Counter[str]


@dataclass
class AccountChanges:
    counters: dict[tuple[str, str], list[CounterChange]] = field(default_factory=dict)  # (subject, day) ->
    sketches: dict[tuple[str, str], bytearray] = field(default_factory=dict)  # (partition, bucket) -> registers

    def raise_sketch(self, partition: str, bucket: str, registers: bytearray) -> None:
        merge_registers(self.sketches.setdefault((partition, bucket), bytearray(REGISTERS)), registers)


def _numbers(image: dict[str, Any]) -> dict[str, int]:
    return {name: int(value["N"]) for name, value in image.items() if "N" in value}


def _binary(value: Any) -> bytes:
    return base64.b64decode(value) if isinstance(value, str) else bytes(value)


def counter_delta(old: dict[str, Any], new: dict[str, Any]) -> Counter[str]:
    """What the change added to each click counter (counters only grow; zeroes left out). Orphan
    visits stay the link's own: they are no clicks, and only a clicked day names its owner."""
    before = _numbers(old)
    delta = {name: value - before.get(name, 0) for name, value in _numbers(new).items() if not is_orphan_counter(name)}
    return Counter(delta) - Counter()


def _owner(image: dict[str, Any]) -> tuple[str, list[str]] | None:
    owner = image.get("owner", {}).get("S")
    if not owner:
        return None
    return owner, [tag["S"] for tag in image.get("tags", {}).get("L", []) if "S" in tag]


def account_changes(records: list[dict[str, Any]], region: str) -> AccountChanges:
    """The subjects' changes of a batch of stream records, in stream order."""
    changes = AccountChanges()
    for record in records:
        stream = record.get("dynamodb", {})
        new, old = stream.get("NewImage"), stream.get("OldImage", {})
        keys = stream.get("Keys", {})
        partition, bucket = keys.get("code", {}).get("S", ""), keys.get("bucket", {}).get("S", "")
        owned = _owner(new) if new else None
        if owned is None or is_subject(partition) or not bucket.endswith(f"#{region}"):
            continue
        subjects = account_subjects(*owned)
        day = bucket[2:12]
        if bucket.startswith(COUNTERS) and "#" not in partition:
            _add_counters(changes, subjects, day, padded_sequence(stream["SequenceNumber"]), partition, old, new)
            _add_inline_sketches(changes, subjects, day, region, old, new)
        elif bucket.startswith(DAY_SKETCH) and "#" not in partition:
            _raise_sketches(changes, subjects, "", bucket, new)
        elif bucket.startswith(HOUR_SKETCH) and partition.endswith(HOURS_PARTITION):
            _raise_sketches(changes, subjects, HOURS_PARTITION, bucket, new)
    return changes


def _raise_sketches(
    changes: AccountChanges, subjects: tuple[str, ...], suffix: str, bucket: str, new: dict[str, Any]
) -> None:
    """A link's sketch raises its subjects' of the same bucket (`suffix`: their partition's)."""
    registers = unpacked_registers(_binary(new["registers"]["B"]))
    for subject in subjects:
        changes.raise_sketch(subject + suffix, bucket, registers)


def _add_counters(
    changes: AccountChanges,
    subjects: tuple[str, ...],
    day: str,
    sequence: str,
    code: str,
    old: dict[str, Any],
    new: dict[str, Any],
) -> None:
    delta = counter_delta(old, new)
    if not delta:
        return
    change = CounterChange(sequence, code, "hot" in new, delta)
    for subject in subjects:
        changes.counters.setdefault((subject, day), []).append(change)


def _add_inline_sketches(
    changes: AccountChanges, subjects: tuple[str, ...], day: str, region: str, old: dict[str, Any], new: dict[str, Any]
) -> None:
    whole_day = bytearray(REGISTERS)
    for name, value in new.items():
        if name.startswith(VISITORS) and "NS" in value:
            added = set(value["NS"]) - set(old.get(name, {}).get("NS", []))
            if not added:
                continue
            registers = registers_of(int(element) for element in added)
            merge_registers(whole_day, registers)
            for subject in subjects:
                changes.raise_sketch(
                    hours_partition(subject), hour_sketch_key(day, name.removeprefix(VISITORS), region), registers
                )
    if any(whole_day):
        for subject in subjects:
            changes.raise_sketch(subject, day_key(DAY_SKETCH, day, region), whole_day)
