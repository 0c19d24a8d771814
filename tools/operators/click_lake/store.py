"""The click lake's bucket as files: the Parquet objects of a range of days, copied into a folder
(as their keys: `clicks/day=YYYY-MM-DD/...`) for DuckDB, and objects written and removed (erasure)."""

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from shortlink.clicks.lake_rows import PARTITION

PREFIX = "clicks/"
# The local stack's bucket (CLICK_LAKE=1 make dev, in the embedded moto's S3).
LOCAL_BUCKET = "click-lake"


def partition_prefix(day: str) -> str:
    """The folder of one day's objects, e.g. clicks/day=2026-11-30/."""
    return f"{PREFIX}{PARTITION}={day}/"


def days_between(first: str, last: str) -> list[str]:
    """Every day from `first` to `last` (ISO dates), both included."""
    start, end = date.fromisoformat(first), date.fromisoformat(last)
    if end < start:
        raise SystemExit(f"the last day ({last}) is before the first ({first})")
    return [(start + timedelta(days=n)).isoformat() for n in range((end - start).days + 1)]


@dataclass(frozen=True)
class LakeBucket:
    s3: Any
    bucket: str

    def keys(self, first: str, last: str) -> Iterator[str]:
        """The keys of the objects of these days' partitions."""
        return self.keys_under([partition_prefix(day) for day in days_between(first, last)])

    def keys_under(self, prefixes: list[str]) -> Iterator[str]:
        """The keys of the objects under these prefixes."""
        pages = self.s3.get_paginator("list_objects_v2")
        for prefix in prefixes:
            for page in pages.paginate(Bucket=self.bucket, Prefix=prefix):
                yield from (item["Key"] for item in page.get("Contents", []))

    def download(self, first: str, last: str, folder: Path) -> list[Path]:
        """Copy these days' objects into `folder`, one file per object (streamed, never held whole)."""
        return self.download_prefixes([partition_prefix(day) for day in days_between(first, last)], folder)

    def download_prefixes(self, prefixes: list[str], folder: Path) -> list[Path]:
        """Copy the objects under these prefixes into `folder`, one file per object, as their keys."""
        files = []
        for key in self.keys_under(prefixes):
            path = folder / key
            path.parent.mkdir(parents=True, exist_ok=True)
            self.s3.download_file(self.bucket, key, str(path))
            files.append(path)
        return files

    def put(self, key: str, body: bytes) -> None:
        self.s3.put_object(Bucket=self.bucket, Key=key, Body=body)

    def delete(self, key: str) -> None:
        self.s3.delete_object(Bucket=self.bucket, Key=key)
