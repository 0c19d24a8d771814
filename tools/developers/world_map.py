"""The console's world map: the countries of Natural Earth's 1:110m map (public domain), as the
npm package world-atlas (pinned in package.json) ships them in TopoJSON, projected
equirectangular onto a 720 by 290 box and written as one SVG path per country, named by its ISO
3166-1 alpha-2 code (the code the click counters keep; Babel's CLDR aliases map the numeric ids).

    python -m tools.developers.world_map   # writes layers/common/shortlink/console/world_map.json

tests/integration/test_world_map_source.py checks that the committed file is what the package makes.
"""

import itertools
import json
from pathlib import Path
from typing import Any

from babel.core import get_global

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "node_modules" / "world-atlas" / "countries-110m.json"
TARGET = ROOT / "layers" / "common" / "shortlink" / "console" / "world_map.json"
SCALE = 2  # pixels per degree
NORTH, SOUTH = 84, -61  # latitudes kept: Antarctica is left out, as click maps do
ANTARCTICA = "010"


def decoded_arcs(topology: dict[str, Any]) -> list[list[tuple[float, float]]]:
    """The topology's arcs as longitude/latitude points (its quantised deltas summed, transformed)."""
    (scale_x, scale_y), (shift_x, shift_y) = topology["transform"]["scale"], topology["transform"]["translate"]
    arcs = []
    for arc in topology["arcs"]:
        x = y = 0
        points = []
        for dx, dy in arc:
            x, y = x + dx, y + dy
            points.append((x * scale_x + shift_x, y * scale_y + shift_y))
        arcs.append(points)
    return arcs


def ring_points(ring: list[int], arcs: list[list[tuple[float, float]]]) -> list[tuple[int, int]]:
    """A ring's projected points; a negative index is the arc ~index walked backwards."""
    walked = [point for index in ring for point in (arcs[index] if index >= 0 else reversed(arcs[~index]))]
    # A ring across the antimeridian (Russia's east, Fiji) is drawn whole east of it, past the box's edge.
    crosses = any(abs(after[0] - before[0]) > 180 for before, after in itertools.pairwise(walked))
    points: list[tuple[int, int]] = []
    for longitude, latitude in walked:
        east = longitude + 360 if crosses and longitude < 0 else longitude
        point = (round((east + 180) * SCALE), round((NORTH - max(latitude, SOUTH)) * SCALE))
        if not points or points[-1] != point:
            points.append(point)
    return points


def path_of(polygons: list[list[list[int]]], arcs: list[list[tuple[float, float]]]) -> str:
    """SVG path data of polygons (lists of rings), in relative moves to keep it short."""
    parts = []
    for polygon in polygons:
        for ring in polygon:
            points = ring_points(ring, arcs)
            if len(points) < 3:
                continue
            (x, y), steps = points[0], []
            for next_x, next_y in points[1:]:
                steps.append(f"{next_x - x} {next_y - y}")
                x, y = next_x, next_y
            parts.append(f"M{points[0][0]} {points[0][1]}l" + " ".join(steps) + "z")
    return "".join(parts)


def world_map() -> list[dict[str, str]]:
    """Each country's alpha-2 code ("" where ISO gives none), name and path, by name."""
    topology = json.loads(SOURCE.read_text())
    arcs = decoded_arcs(topology)
    aliases = get_global("territory_aliases")
    countries = []
    for geometry in topology["objects"]["countries"]["geometries"]:
        number = geometry.get("id", "")
        if number == ANTARCTICA or geometry.get("type") not in ("Polygon", "MultiPolygon"):
            continue
        polygons = [geometry["arcs"]] if geometry["type"] == "Polygon" else geometry["arcs"]
        code = aliases.get(number, [""])[0]
        countries.append({"code": code, "name": geometry["properties"]["name"], "d": path_of(polygons, arcs)})
    return sorted(countries, key=lambda country: country["name"])


if __name__ == "__main__":
    TARGET.write_text(json.dumps(world_map(), separators=(",", ":")) + "\n")
    print(f"wrote {TARGET.relative_to(ROOT)}")
