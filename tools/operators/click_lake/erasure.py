"""Erasing one link's rows when its owner asks: every object of the chosen days that holds one of
its rows is written again without them (a new object first, then the old one removed), so a
crash midway leaves a row twice (counted once by its click id), never a row lost of another link.
The bucket is unversioned: a removed object leaves no older version behind."""

import uuid
from pathlib import Path

from shortlink.clicks.lake_rows import COLUMNS
from tools.operators.click_lake.parquet import lake_connection, parquet_bytes
from tools.operators.click_lake.store import LakeBucket


def erase_link(lake: LakeBucket, link: str, first: str, last: str, folder: Path) -> int:
    """Remove the rows of `link` (as the lake names it) from these days; how many were removed."""
    removed = 0
    for key in list(lake.keys(first, last)):
        path = folder / key
        path.parent.mkdir(parents=True, exist_ok=True)
        lake.s3.download_file(lake.bucket, key, str(path))
        database = lake_connection([path])
        [(found,)] = database.execute("SELECT count(*) FROM clicks WHERE link = ?", [link]).fetchall()
        if not found:
            continue
        names = ", ".join(f'"{name}"' for name, _ in COLUMNS)
        kept = database.execute(f"SELECT {names} FROM clicks WHERE link <> ?", [link])  # noqa: S608 (our columns)
        rows = [dict(zip([name for name, _ in COLUMNS], row, strict=True)) for row in kept.fetchall()]
        if rows:
            folder_key = key.rsplit("/", 1)[0]
            lake.put(f"{folder_key}/erased-{uuid.uuid4()}.parquet", parquet_bytes(rows))
        lake.delete(key)
        removed += found
    return removed
