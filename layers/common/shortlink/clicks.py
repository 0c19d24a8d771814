"""Click events: what the redirect emits and the ingest function counts."""

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from shortlink.links import is_possible_code


@dataclass(frozen=True)
class ClickEvent:
    code: str
    at: datetime

    def to_json(self) -> str:
        return json.dumps({"code": self.code, "at": self.at.isoformat()})

    @classmethod
    def from_json(cls, body: str) -> "ClickEvent":
        """Parse a queued click; ValueError (or KeyError/TypeError) for a malformed one."""
        data = json.loads(body)
        code = data["code"]
        if not isinstance(code, str) or not is_possible_code(code):
            raise ValueError("click without a valid code")
        return cls(code=code, at=datetime.fromisoformat(data["at"]))


class ClickPublisher(Protocol):
    def publish(self, click: ClickEvent) -> None:
        """Queue a click for counting."""


class ClickCounterStore(Protocol):
    def add_clicks(self, code: str, count: int) -> None:
        """Atomically add `count` to the link's total."""

    def total_clicks(self, code: str) -> int:
        """The link's total so far."""


def clicks_per_link(clicks: Iterable[ClickEvent]) -> Counter[str]:
    """One count per link, so a batch costs one write per link, not one per click."""
    return Counter(click.code for click in clicks)
