"""A link's counters of one UTC day as the stats read them: whatever regions and item kinds
held them, summed (counters) and merged (unique-visitor registers)."""

from collections import Counter
from dataclasses import dataclass, field

from shortlink.clicks.agent_classes import BOT_CLASSES, PERSON, UNKNOWN_BOT
from shortlink.clicks.events import DIMENSIONS
from shortlink.clicks.tally import DIMENSION_OF_KEY, agent_counter
from shortlink.clicks.unique_visitors import REGISTERS, Registers, merge_registers


@dataclass
class DayCounts:
    day: str  # e.g. 2026-11-30
    counters: Counter[str] = field(default_factory=Counter)  # named as in shortlink.clicks.tally
    hour_visitors: dict[str, bytearray] = field(default_factory=dict)  # "14" -> registers
    day_visitors: bytearray = field(default_factory=lambda: bytearray(REGISTERS))

    def add_counters(self, counters: dict[str, int]) -> None:
        self.counters.update(counters)

    def add_hour_visitors(self, hour: str, registers: Registers) -> None:
        merge_registers(self.hour_visitors.setdefault(hour, bytearray(REGISTERS)), registers)

    def add_day_visitors(self, registers: Registers) -> None:
        merge_registers(self.day_visitors, registers)

    def hour(self, hour: str) -> tuple[int, int]:
        """Clicks and bots of one hour ("14")."""
        return self.counters[f"clicks@{hour}"], self.counters[f"bots@{hour}"]

    def agents(self) -> Counter[str]:
        """The whole day's clicks per class (shortlink.clicks.agent_classes): its people are its
        clicks less its bots, and its bots without a class (counted before classes) UNKNOWN_BOT."""
        clicks = bots = 0
        for hour in range(24):
            hour_clicks, hour_bots = self.hour(f"{hour:02d}")
            clicks, bots = clicks + hour_clicks, bots + hour_bots
        classes = Counter({agent: self.counters[agent_counter(agent)] for agent in BOT_CLASSES})
        for name, count in self.counters.items():  # the release before counted classes per hour: `bots@14#crawler`
            if name.startswith("bots@") and (agent := name.partition("#")[2]) in BOT_CLASSES:
                classes[agent] += count
        return Counter({PERSON: clicks - bots, **classes, UNKNOWN_BOT: bots - classes.total()})

    def repeats(self, hour: str) -> int:
        """Repeat clicks of one hour ("14"): counted in its clicks too (shortlink.clicks.repeats)."""
        return self.counters[f"repeats@{hour}"]

    def dimension_values(self) -> dict[str, Counter[str]]:
        """The day's clicks per value of each dimension."""
        found: dict[str, Counter[str]] = {dimension: Counter() for dimension in DIMENSIONS}
        for name, count in self.counters.items():
            key, _, value = name.partition("#")
            if key in DIMENSION_OF_KEY and value:
                found[DIMENSION_OF_KEY[key]][value] += count
        return found
