"""The local stand-in for DynamoDB global tables' replication: reads each region's stream of each
replicated table, and applies every write to the other regions after the lag, last writer wins
(tools.developers.devstack.replication decides what to write). A stopped region's stream is not read and
nothing is written to it until it is started again; what came meanwhile is applied then.
"""

import heapq
import itertools
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tools.developers.devstack.replication import Change, Ledger, Write

logger = logging.getLogger("devstack.replication")

# How often each stream is read at most: half the lag (a write is then seen before it is due,
# and applied when due), and never more than this, to spare a shared machine's CPU.
MAX_POLL_SECONDS = 0.25
MIN_POLL_SECONDS = 0.02
BATCH_LIMIT = 25  # BatchWriteItem's
BATCH_ATTEMPTS = 5


@dataclass(frozen=True)
class RegionClients:
    dynamodb: Any
    streams: Any


class _Shard:
    """Where the replicator is in one shard of one stream."""

    def __init__(self, streams: Any, stream_arn: str, shard_id: str) -> None:
        self._streams = streams
        self._arn = stream_arn
        self._shard_id = shard_id
        self._iterator: str | None = None
        self._last: str | None = None

    def read(self) -> list[dict[str, Any]]:
        if self._iterator is None:
            start = (
                {"ShardIteratorType": "AFTER_SEQUENCE_NUMBER", "SequenceNumber": self._last}
                if self._last
                else {"ShardIteratorType": "TRIM_HORIZON"}
            )
            answer = self._streams.get_shard_iterator(StreamArn=self._arn, ShardId=self._shard_id, **start)
            self._iterator = answer["ShardIterator"]
        answer = self._streams.get_records(ShardIterator=self._iterator, Limit=1000)
        self._iterator = answer.get("NextShardIterator")
        records: list[dict[str, Any]] = answer["Records"]
        if records:
            self._last = records[-1]["dynamodb"]["SequenceNumber"]
        return records


class Replicator(threading.Thread):
    def __init__(
        self,
        clients: dict[str, RegionClients],
        tables: list[str],
        lag_seconds: float,
        clock: Callable[[], float] = time.time,
    ) -> None:
        super().__init__(name="replicator", daemon=True)
        self._clients = clients
        self._tables = tables
        self._clock = clock
        self.ledger = Ledger(list(clients), lag_seconds)
        self._poll_seconds = min(MAX_POLL_SECONDS, max(MIN_POLL_SECONDS, lag_seconds / 2))
        self._shards: dict[tuple[str, str], list[_Shard]] = {}
        self._queue: list[tuple[float, int, str, Change]] = []  # (due, order, destination, change)
        self._order = itertools.count()
        self._stopped_regions: set[str] = set()
        self._lock = threading.Lock()
        self.stopping = threading.Event()

    def _shards_of(self, region: str, table: str) -> list[_Shard]:
        known = self._shards.get((region, table))
        if known is None:
            client = self._clients[region]
            arn = client.dynamodb.describe_table(TableName=table)["Table"]["LatestStreamArn"]
            shards = client.streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]
            known = self._shards[(region, table)] = [_Shard(client.streams, arn, shard["ShardId"]) for shard in shards]
        return known

    def stop_region(self, region: str) -> None:
        with self._lock:
            self._stopped_regions.add(region)

    def start_region(self, region: str) -> None:
        with self._lock:
            self._stopped_regions.discard(region)

    @property
    def pending(self) -> int:
        """Writes read from a stream and not yet applied everywhere they are due."""
        with self._lock:
            return len(self._queue)

    def poll_once(self) -> int:
        """Read every running region's streams, then apply what is due; how much happened."""
        with self._lock:
            running = self._running()
            happened = 0
            for region in running:
                for table in self._tables:
                    for shard in self._shards_of(region, table):
                        for record in shard.read():
                            happened += 1
                            self._observe(region, table, record)
            happened += self._apply_due(running)
            return happened

    def _running(self) -> list[str]:
        return [region for region in self._clients if region not in self._stopped_regions]

    def _observe(self, region: str, table: str, record: dict[str, Any]) -> None:
        try:
            change, writes = self.ledger.observe(region, table, record)
            self._write_all(writes)
        except Exception:
            # One record the replicator cannot read must not hold back every later one.
            logger.exception("%s: a record of %s's stream is not replicated", table, region)
            return
        if change is not None:
            self._offer(change)

    def _offer(self, change: Change) -> None:
        for destination in self._clients:
            if destination != change.origin:
                heapq.heappush(self._queue, (change.due, next(self._order), destination, change))

    def _apply_due(self, running: list[str]) -> int:
        """Write what is due, puts in batches (one item once per batch), deletes one by one."""
        now = self._clock()
        held_back: list[tuple[float, int, str, Change]] = []
        batches: dict[tuple[str, str], list[tuple[Write, tuple[float, int, str, Change]]]] = {}
        applied = 0

        def flush(target: tuple[str, str]) -> None:
            nonlocal applied
            batch = batches.pop(target, [])
            if not batch:
                return
            try:
                self._put_batch(target, [write for write, _ in batch])
                applied += len(batch)
            except Exception:
                logger.exception("%s: writes to %s failed; they are tried again", target[1], target[0])
                for write, entry in batch:
                    self.ledger.unplan(write)
                    held_back.append((now + self._poll_seconds, *entry[1:]))

        while self._queue and self._queue[0][0] <= now and not self.stopping.is_set():
            entry = heapq.heappop(self._queue)
            destination, change = entry[2], entry[3]
            if destination not in running or change.origin not in running:
                held_back.append(entry)  # a stopped region's replication waits, both ways
                continue
            target = (destination, change.table)
            batch = batches.setdefault(target, [])
            if change.image is None or any(planned.change.item == change.item for planned, _ in batch):
                flush(target)  # a delete, or a second write of an item, after what came before it
            if not self.ledger.newer_than_held(destination, change):
                continue
            write = self.ledger.plan(destination, change)
            if change.image is not None:
                batches.setdefault(target, []).append((write, entry))
                if len(batches[target]) == BATCH_LIMIT:
                    flush(target)
                continue
            try:
                self._write(write)
                applied += 1
            except Exception:
                logger.exception("%s: a write to %s failed; it is tried again", change.table, destination)
                self.ledger.unplan(write)
                held_back.append((now + self._poll_seconds, *entry[1:]))
        for target in list(batches):
            flush(target)
        for held in held_back:
            heapq.heappush(self._queue, held)
        return applied

    def _put_batch(self, target: tuple[str, str], writes: list[Write]) -> None:
        region, table = target
        requests = [{"PutRequest": {"Item": write.change.image}} for write in writes]
        for _ in range(BATCH_ATTEMPTS):
            answer = self._clients[region].dynamodb.batch_write_item(RequestItems={table: requests})
            requests = answer.get("UnprocessedItems", {}).get(table, [])
            if not requests:
                return
            time.sleep(0.05)
        raise RuntimeError(f"{len(requests)} items left unprocessed")

    def _write_all(self, writes: list[Write]) -> None:
        for write in writes:
            self._write(write)

    def _write(self, write: Write) -> None:
        dynamodb = self._clients[write.region].dynamodb
        change = write.change
        if change.image is None:
            answer = dynamodb.delete_item(TableName=change.table, Key=change.keys, ReturnValues="ALL_OLD")
            if "Attributes" not in answer:
                self.ledger.unchanged(write.region, change)
            return
        # A put that changes nothing leaves its echo expected for good where the store writes no
        # record for it (DynamoDB; moto writes one): harmless, the region holds that version.
        dynamodb.put_item(TableName=change.table, Item=change.image)

    def _next_due(self) -> float | None:
        with self._lock:
            return self._queue[0][0] if self._queue else None

    def run(self) -> None:
        next_poll = 0.0
        while not self.stopping.is_set():
            try:
                if self._clock() >= next_poll:
                    self.poll_once()
                    next_poll = self._clock() + self._poll_seconds
                else:
                    with self._lock:
                        self._apply_due(self._running())
            except Exception:
                logger.exception("replication failed; retrying")
            # Sleep until the next poll, or the next write due before it.
            due = self._next_due()
            wake = next_poll if due is None else min(next_poll, due)
            self.stopping.wait(max(0.0, min(wake - self._clock(), self._poll_seconds)))
