"""S3 adapter: an IP database (`.mmdb`) kept as an object of the operator's bucket, so a monthly
update needs no redeploy. Read after the response (never before it): the object is fetched on an
environment's first click, then asked for again at most every `check_seconds` with its ETag
(`If-None-Match`: an unchanged database costs one GET answered 304, no body). A new one is written
to /tmp, opened, and only then replaces the one in use: a corrupt object is logged and the one
read before is kept; none at all reads as none (its dimension unknown), never as an error.
"""

import logging
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Generic

from shortlink.clicks.ip_databases import Database

logger = logging.getLogger("shortlink.clicks")

# Sooner than the stack's other clients' reads: a database of a few MB, fetched after a response.
CONNECT_TIMEOUT_SECONDS = 1
READ_TIMEOUT_SECONDS = 5
MAX_ATTEMPTS = 2
CHUNK_BYTES = 1 << 20
ABSENT = frozenset({"NoSuchKey", "404", "NoSuchBucket"})
UNCHANGED = frozenset({"304", "NotModified"})


class S3Database(Generic[Database]):
    """The database in s3://`bucket`/`key`, opened as `kind`, its copy kept in the temporary directory."""

    def __init__(
        self,
        bucket: str,
        key: str,
        kind: Callable[[str], Database],
        check_seconds: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._bucket, self._key, self._kind = bucket, key, kind
        self._check_seconds, self._clock = check_seconds, clock
        # /tmp in Lambda (its one writable place, per environment)
        self._path = Path(tempfile.gettempdir()) / f"ip-database-{key.replace('/', '-')}"
        self._client: Any = None
        self._database: Database | None = None
        self._etag = ""
        self._checked_at: float | None = None

    def current(self) -> Database | None:
        """The database to read now, asked for again once `check_seconds` have passed."""
        now = self._clock()
        if self._checked_at is None or now - self._checked_at >= self._check_seconds:
            self._checked_at = now
            self._refresh()
        return self._database

    def _refresh(self) -> None:
        from botocore.exceptions import BotoCoreError, ClientError

        where = f"s3://{self._bucket}/{self._key}"
        request = {"Bucket": self._bucket, "Key": self._key} | ({"IfNoneMatch": self._etag} if self._etag else {})
        try:
            answer = self._s3().get_object(**request)
            etag = str(answer["ETag"])
            self._write(answer["Body"])
        except ClientError as error:
            code = str(error.response.get("Error", {}).get("Code", ""))
            if code in UNCHANGED:
                return
            if code in ABSENT:
                logger.warning("IP database %s is absent: read as none", where)
                self._database, self._etag = None, ""
                return
            logger.error("IP database %s not fetched (%s): the one read before is kept", where, code)
            return
        except (BotoCoreError, OSError) as error:
            logger.error("IP database %s not fetched (%s): the one read before is kept", where, error)
            return
        self._etag = etag  # a corrupt object is fetched once, not at every check, until it changes
        self._open(where, etag)

    def _write(self, body: Any) -> None:
        with self._fresh_path().open("wb") as copy:
            for chunk in iter(lambda: body.read(CHUNK_BYTES), b""):
                copy.write(chunk)

    def _open(self, where: str, etag: str) -> None:
        fresh = self._fresh_path()
        try:
            database = self._kind(str(fresh))
        except Exception as error:
            fresh.unlink(missing_ok=True)
            logger.error(  # the reason is the message: a traceback of a bad file says no more
                "IP database %s (ETag %s) is not a readable database (%s): the one read before is kept",
                where,
                etag,
                error,
            )
            return
        os.replace(fresh, self._path)
        self._database = database
        logger.info("IP database %s (ETag %s) read", where, etag)

    def _fresh_path(self) -> Path:
        return self._path.with_name(f"{self._path.name}.new")

    def _s3(self) -> Any:
        if self._client is None:
            from shortlink.adapters.botocore_clients import botocore_client

            self._client = botocore_client(
                "s3", READ_TIMEOUT_SECONDS, connect_timeout_seconds=CONNECT_TIMEOUT_SECONDS, max_attempts=MAX_ATTEMPTS
            )
        return self._client
