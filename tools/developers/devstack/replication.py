"""Multi-region eventual consistency (MREC) as DynamoDB global tables apply it, decided here and
applied by tools.developers.devstack.replicator: every write a region's stream shows is offered to the other
regions after a lag, and a region keeps it only if it is newer than what it holds (last writer
wins). Pure bookkeeping: no AWS call in this module.

A write's version is (write time in ms, region index, stream sequence number): two writes of one
item in two regions in the same millisecond resolve to the same winner everywhere. The replicator's
own writes show in the target region's stream too; they are recognised ("echoes") and never
replicated back. A local write the replicator's put overwrote (it came first in the stream) while
being the newer one is put back, so that every region ends with the same winner.
"""

import base64
import json
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

Image = dict[str, Any] | None  # an item in DynamoDB JSON; None: the item is deleted


@dataclass(frozen=True, order=True)
class Version:
    written_ms: int
    region_index: int
    sequence: int


NO_VERSION = Version(-1, -1, -1)


@dataclass(frozen=True)
class Change:
    """One write of one item, as it is to be replayed in the other regions."""

    table: str
    keys: dict[str, Any]
    image: Image
    version: Version
    origin: str
    due: float  # when the other regions may see it (write time + lag), in seconds

    @property
    def item(self) -> str:
        return item_id(self.table, self.keys)


@dataclass(frozen=True)
class Write:
    """What the replicator is to do in `region`: put `change.image` (or delete the item)."""

    region: str
    change: Change


def item_id(table: str, keys: dict[str, Any]) -> str:
    return f"{table}|{canonical(keys)}"


def canonical(image: Image) -> str:
    return json.dumps(image, sort_keys=True, default=_binary)


def _binary(value: Any) -> str:
    """Binary attribute values (B, BS) as boto3 hands them over: bytes."""
    if isinstance(value, bytes | bytearray):
        return base64.b64encode(bytes(value)).decode()
    raise TypeError(f"{type(value).__name__} in a stream record")


@dataclass
class _Expected:
    version: Version
    image: str  # canonical


@dataclass
class Ledger:
    """What each region holds of each item, in the order of its stream, and the replicator's
    writes not yet seen in their region's stream."""

    regions: list[str]
    lag_seconds: float
    held: dict[str, dict[str, tuple[Version, Change | None]]] = field(default_factory=lambda: defaultdict(dict))
    expected: dict[str, dict[str, list[_Expected]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(list))
    )

    def observe(self, region: str, table: str, record: dict[str, Any]) -> tuple[Change | None, list[Write]]:
        """A record of `region`'s stream of `table`: the change to offer to the other regions
        (None for the replicator's own writes) and the writes to make now (a local write to put
        back in `region`)."""
        data = record["dynamodb"]
        keys = data["Keys"]
        image = None if record["eventName"] == "REMOVE" else data["NewImage"]
        item = item_id(table, keys)
        shown = canonical(image)
        pending = self.expected[region][item]
        for position, expectation in enumerate(pending):
            if expectation.image == shown:
                del pending[: position + 1]
                return None, self._echoed(region, item, expectation.version)
        held_version = self.latest(region, item)
        written = Version(written_ms(data["ApproximateCreationDateTime"]), self.regions.index(region), 0)
        # A local write overwrites what its region held: it is newer, even within the same millisecond.
        if written <= held_version:
            written = Version(held_version.written_ms + 1, written.region_index, 0)
        version = Version(written.written_ms, written.region_index, int(data["SequenceNumber"]))
        change = Change(table, keys, image, version, region, due=version.written_ms / 1000 + self.lag_seconds)
        self.held[region][item] = (version, change)
        return change, []

    def _echoed(self, region: str, item: str, version: Version) -> list[Write]:
        """The replicator's write of `version` reached `region`'s stream. A newer local write the
        stream showed before it was overwritten by it: put that one back."""
        overwritten = self.held[region].get(item)
        self.held[region][item] = (version, None)
        if overwritten and overwritten[0] > version and overwritten[1] is not None:
            return [self.plan(region, overwritten[1])]
        return []

    def latest(self, region: str, item: str) -> Version:
        """The newest version `region` holds or is being written."""
        versions = [self.held[region].get(item, (NO_VERSION, None))[0]]
        versions += [expectation.version for expectation in self.expected[region][item]]
        return max(versions)

    def newer_than_held(self, region: str, change: Change) -> bool:
        """Last writer wins: whether `region` is to take `change`."""
        return change.version > self.latest(region, change.item)

    def plan(self, region: str, change: Change) -> Write:
        """Record that the replicator writes `change` to `region` (its echo is expected)."""
        self.expected[region][change.item].append(_Expected(change.version, canonical(change.image)))
        return Write(region, change)

    def unplan(self, write: Write) -> None:
        """The write failed: no echo of it will come."""
        pending = self.expected[write.region][write.change.item]
        pending[:] = [expectation for expectation in pending if expectation.version != write.change.version]

    def unchanged(self, region: str, change: Change) -> None:
        """The write made no change in `region` (a delete of an absent item): no echo will come."""
        self.unplan(Write(region, change))
        self.held[region][change.item] = (change.version, None)


def written_ms(moment: Any) -> int:
    """A stream record's ApproximateCreationDateTime (a datetime from boto3, epoch seconds in JSON)."""
    if hasattr(moment, "timestamp"):
        return round(float(moment.timestamp()) * 1000)
    return round(float(moment) * 1000)
