"""The edge's KeyValueStore through the `cloudfront-keyvaluestore` API (SigV4A-signed: botocore
signs it with awscrt, which the sync function's package brings along).

Every write names the store's ETag (IfMatch): another writer in between (a second batch, an
operator's urgent takedown) makes it fail with ConflictException, and the write is tried again
with the ETag read afresh. Throttling and server errors are retried by botocore's standard mode;
what still fails becomes StorageUnavailable, and the stream offers the batch again.
"""

from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from shortlink.edge.store_plan import StoreUpdate
from shortlink.errors import StorageUnavailable

# Tries of one update against writers that keep getting in first.
MAX_CONFLICT_ATTEMPTS = 8
LIST_PAGE_SIZE = 50  # ListKeys' largest page


class KeyValueStore:
    """EdgeStore over one KeyValueStore (its ARN)."""

    def __init__(self, client: Any, arn: str, max_conflict_attempts: int = MAX_CONFLICT_ATTEMPTS) -> None:
        self._client = client
        self._arn = arn
        self._max_attempts = max_conflict_attempts
        self._etag: str | None = None  # the last one seen: saves a describe per update
        self.conflicts = 0  # ETag conflicts met and retried (for the function's metric)

    def size(self) -> int:
        return int(self._describe()["TotalSizeInBytes"])

    def apply(self, update: StoreUpdate) -> None:
        request: dict[str, Any] = {"KvsARN": self._arn}
        if update.puts:
            request["Puts"] = [{"Key": key, "Value": value} for key, value in update.puts]
        if update.deletes:
            request["Deletes"] = [{"Key": key} for key in update.deletes]
        for _ in range(self._max_attempts):
            etag = self._etag or self._describe()["ETag"]
            try:
                self._etag = self._client.update_keys(IfMatch=etag, **request)["ETag"]
                return
            except ClientError as error:
                self._etag = None
                if _code(error) != "ConflictException":
                    raise StorageUnavailable(f"edge store not updated: {_code(error)}") from error
                self.conflicts += 1
            except BotoCoreError as error:
                self._etag = None
                raise StorageUnavailable(f"edge store not updated: {error}") from error
        raise StorageUnavailable(f"edge store not updated: {self._max_attempts} ETag conflicts in a row")

    def entries(self) -> dict[str, str]:
        found: dict[str, str] = {}
        request: dict[str, Any] = {"KvsARN": self._arn, "MaxResults": LIST_PAGE_SIZE}
        try:
            while True:
                page = self._client.list_keys(**request)
                found.update((item["Key"], item["Value"]) for item in page.get("Items", []))
                if not page.get("NextToken"):
                    return found
                request["NextToken"] = page["NextToken"]
        except (BotoCoreError, ClientError) as error:
            raise StorageUnavailable(f"edge store not listed: {error}") from error

    def _describe(self) -> dict[str, Any]:
        try:
            described: dict[str, Any] = self._client.describe_key_value_store(KvsARN=self._arn)
        except (BotoCoreError, ClientError) as error:
            raise StorageUnavailable(f"edge store not described: {error}") from error
        self._etag = described["ETag"]
        return described


def _code(error: ClientError) -> str:
    return str(error.response.get("Error", {}).get("Code", ""))
