"""The committed world map is what the pinned world-atlas package makes (tools.developers.world_map)."""

import json

from tools.developers import world_map


def test_the_committed_world_map_is_made_from_the_pinned_natural_earth_countries():
    made = json.dumps(world_map.world_map(), separators=(",", ":")) + "\n"
    assert world_map.TARGET.read_text() == made, "run python -m tools.developers.world_map"
