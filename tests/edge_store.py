"""The edge's store file as the local stack publishes it (tools/developers/devstack/edge_host.mjs reads it):
links encoded by shortlink.edge.entries, written to a temporary file and renamed over it."""

import json
import os
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path

from shortlink.domains.model import ShortDomains
from shortlink.edge.entries import edge_item
from shortlink.links.model import Link


def publish(path: Path, links: Iterable[Link], domains: ShortDomains) -> None:
    """Publish the entries of `links` (those the edge may answer on `domains`) at `path`."""
    now = datetime.now(UTC)
    entries = dict(item for link in links if (item := edge_item(link, domains, now)) is not None)
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(entries))
    os.replace(temporary, path)
