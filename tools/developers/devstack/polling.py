"""What each event source's poller shares with the others: a thread that polls its source until
it is told to stop, resting between polls only while nothing comes, and outliving a failed poll."""

import logging
import threading
from abc import ABC, abstractmethod

logger = logging.getLogger("devstack")


class Poller(threading.Thread, ABC):
    def __init__(self, name: str, source: str, interval: float) -> None:
        super().__init__(name=name, daemon=True)
        self._source = source  # what the failure's log line names
        self._interval = interval
        self.stopping = threading.Event()

    @abstractmethod
    def poll_once(self) -> int:
        """Hand the function what has come; how much that was (0: nothing came)."""

    def run(self) -> None:
        while not self.stopping.is_set():
            try:
                delivered = self.poll_once()
            except Exception:
                logger.exception("polling %s failed", self._source)
                delivered = 0
            if not delivered:
                self.stopping.wait(self._interval)
