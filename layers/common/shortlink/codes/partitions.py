"""Which ids a region issues: in a deployment of several regions, each counts on a counter of
its own and issues ids no other region can, so no create asks another region anything.

A single-region deployment numbers ids 0, 1, 2, ... from one counter (as it always has). With
several, the region at `index` in SHORTLINK_REGIONS turns its counter's n-th value into
`space - 1 - (n * MAX_REGIONS + index)`: the regions' ids interleave (each keeps one residue
modulo MAX_REGIONS) and count down from the top of the code space, while the ids a deployment
issued before it grew from one region count up from 0. The two meet only when every code of
the length is used, so an upgrade never issues an id again. A region added later takes the
next index; a region that leaves the deployment stays in the list, so that its index is never
another's (the list only grows at its end).
"""

from dataclasses import dataclass

# Regions of one deployment: the id space has this many partitions, fixed for good.
MAX_REGIONS = 8

# The single-region deployment's counter item, as before regions; each region of several has
# its own, which only that region writes (a global table's items resolve by last writer wins).
SINGLE_COUNTER = "link-ids"


@dataclass(frozen=True)
class IdPartition:
    """The ids of one region; `index` None: the deployment's only region."""

    index: int | None = None

    def __post_init__(self) -> None:
        if self.index is not None and not 0 <= self.index < MAX_REGIONS:
            raise ValueError(f"a region index is in [0, {MAX_REGIONS}), got {self.index}")

    def id_of(self, counted: int, space: int) -> int:
        """The id of the counter's value `counted` in a space of `space` ids (may fall outside
        it: the space is then used up)."""
        if self.index is None:
            return counted
        return space - 1 - (counted * MAX_REGIONS + self.index)


def counter_name(region: str | None) -> str:
    """The counter item of `region`'s ids (None: the single region's)."""
    return SINGLE_COUNTER if region is None else f"{SINGLE_COUNTER}#{region}"
