"""Hands out ids from blocks reserved on a shared atomic counter.

One counter update reserves `block_size` ids for this process; an environment that dies
skips the rest of its block, and the gap is harmless. Nothing is reserved until the
first id is asked for, so a SnapStart snapshot never holds a block.
"""

import threading
from typing import Protocol


class CounterStore(Protocol):
    def reserve(self, count: int) -> int:
        """Atomically add `count` to the counter and return the new value."""


class IdBlockAllocator:
    def __init__(self, counter: CounterStore, block_size: int = 1000) -> None:
        if block_size < 1:
            raise ValueError("block_size must be positive")
        self._counter = counter
        self._block_size = block_size
        self._next = 0
        self._end = 0
        self._lock = threading.Lock()

    def next_id(self) -> int:
        with self._lock:
            if self._next >= self._end:
                self._end = self._counter.reserve(self._block_size)
                self._next = self._end - self._block_size
            value = self._next
            self._next += 1
            return value
