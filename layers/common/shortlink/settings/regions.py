"""A deployment in one region or several (docs/regions.md).

SHORTLINK_REGIONS lists the regions in a fixed order that only grows at its end (none: one
region, as always); AWS_REGION is this function's; SHORTLINK_HOME_REGION the one where writes
whose uniqueness or order matters are made.
"""

import re
from dataclasses import dataclass

from shortlink.codes.partitions import MAX_REGIONS
from shortlink.errors import ConfigurationError
from shortlink.settings.environment import EnvironmentModel, text, variable

REGION_NAME = re.compile(r"[a-z]{2}(-[a-z]+)+-[0-9]+")


def region_list(text: str) -> tuple[str, ...]:
    """SHORTLINK_REGIONS as a checked tuple (empty: a single-region deployment)."""
    regions = tuple(item.strip() for item in text.split(",") if item.strip())
    for name in regions:
        if not REGION_NAME.fullmatch(name):
            raise ValueError(f"{name!r} is not a region name")
    if len(set(regions)) != len(regions):
        raise ValueError("names a region twice")
    if len(regions) > MAX_REGIONS:
        raise ValueError(f"names more than {MAX_REGIONS} regions")
    return regions


@dataclass(frozen=True)
class RegionSettings(EnvironmentModel):
    regions: tuple[str, ...] = variable("SHORTLINK_REGIONS", (), region_list)
    # Tools and tests name their region the older way.
    region: str = text("AWS_REGION", older="AWS_DEFAULT_REGION")
    home_region: str = variable("SHORTLINK_HOME_REGION", "", str.strip)

    def __post_init__(self) -> None:
        if self.regions and self.region not in self.regions:
            raise ConfigurationError(
                f"SHORTLINK_REGIONS does not name this function's region {self.region!r} (AWS_REGION)"
            )
        if not self.home_region:
            object.__setattr__(self, "home_region", self.region)
        elif self.home_region != self.region and self.home_region not in self.regions:
            raise ConfigurationError(f"SHORTLINK_HOME_REGION {self.home_region!r} is not one of SHORTLINK_REGIONS")

    @property
    def several_regions(self) -> bool:
        return len(self.regions) > 1

    @property
    def region_index(self) -> int:
        """This region's place in SHORTLINK_REGIONS (0 in a single-region deployment)."""
        return self.regions.index(self.region) if self.several_regions else 0

    @property
    def away_from_home(self) -> bool:
        return self.several_regions and self.home_region != self.region

    @property
    def home_region_name(self) -> str | None:
        """The region the home region's adapters name: None in a single-region deployment (the
        function's own, as ever)."""
        return self.home_region if self.several_regions else None

    @property
    def region_name(self) -> str | None:
        """The region this region's own adapters name (None: single-region, as home_region_name)."""
        return self.region if self.several_regions else None
