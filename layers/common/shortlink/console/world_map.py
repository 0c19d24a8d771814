"""The stats pages' world map: each country of the pinned Natural Earth map (world_map.json, made
by tools.developers.world_map) shaded by its share of the report's top countries, for an inline
SVG the page draws; the countries table beside it is its accessible equivalent."""

import json
from functools import cache
from math import ceil
from pathlib import Path
from typing import Any

GEOMETRY = Path(__file__).with_name("world_map.json")
LEVELS = 4  # shades of the countries with clicks; 0 is none


@cache
def countries() -> list[dict[str, str]]:
    countries: list[dict[str, str]] = json.loads(GEOMETRY.read_text())
    return countries


def choropleth(top_countries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every country's path with its clicks and shade (1 to LEVELS, by its clicks against the
    most-clicked country's; 0 without clicks) from a report's `top["country"]`."""
    clicks = {entry["value"]: int(entry["clicks"]) for entry in top_countries}
    most = max(clicks.values(), default=0) or 1
    shaded = []
    for country in countries():
        count = clicks.get(country["code"], 0) if country["code"] else 0
        shaded.append({**country, "clicks": count, "level": ceil(LEVELS * count / most)})
    return shaded
