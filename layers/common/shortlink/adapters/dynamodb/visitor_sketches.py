"""Unique-visitor registers of busy days and hours, in their own click-stats items (`s#` for a
day, `t#` for an hour), each at most ~800 bytes whatever the traffic.

A sketch only ever rises (each register keeps its maximum), so writing one needs no ledger: a
redelivered click raises nothing. It is read, merged and put back on condition that its version
is still the one read; a race re-reads. This environment remembers each sketch it wrote, so a
batch that raises no register writes nothing, and a sketch is read only on first use: a copy
that is behind the table can only say "nothing rose" when nothing rose above the table's either.
"""

from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from shortlink.clicks.unique_visitors import REGISTERS, Registers, merge_registers, packed_registers, unpacked_registers
from shortlink.errors import StorageUnavailable

MAX_RACES = 5
MAX_REMEMBERED = 20_000  # sketches kept per environment (~1 KB each)


class DynamoVisitorSketches:
    def __init__(self, table_name: str, client: Any) -> None:
        self._table = table_name
        self._client = client
        self._known: dict[tuple[str, str], tuple[int, bytearray]] = {}

    def raise_to(self, code: str, bucket: str, registers: Registers, labels: dict[str, Any] | None = None) -> None:
        """Raise the sketch at (code, bucket) to at least `registers`; a write also puts the
        `labels` attributes (a link's owner and tags, for its account's sketches)."""
        for _ in range(MAX_RACES):
            version, current = self._known.get((code, bucket)) or self._read(code, bucket)
            merged = bytearray(current)
            if not merge_registers(merged, registers):
                self._remember(code, bucket, version, merged)
                return
            try:
                self._client.put_item(**self._put(code, bucket, version, merged, labels or {}))
            except ClientError as error:
                if error.response.get("Error", {}).get("Code") != "ConditionalCheckFailedException":
                    raise StorageUnavailable(f"visitor sketch not written: {error}") from error
                self._known.pop((code, bucket), None)  # another writer raised it: read it again
                continue
            except BotoCoreError as error:
                raise StorageUnavailable(f"visitor sketch not written: {error}") from error
            self._remember(code, bucket, version + 1, merged)
            return
        raise StorageUnavailable(f"visitor sketch {code} {bucket} kept racing another writer")

    def _put(
        self, code: str, bucket: str, version: int, registers: bytearray, labels: dict[str, Any]
    ) -> dict[str, Any]:
        condition = "attribute_not_exists(#version)" if version == 0 else "#version = :read"
        values: dict[str, Any] = {":read": {"N": str(version)}} if version else {}
        return {
            "TableName": self._table,
            "Item": {
                "code": {"S": code},
                "bucket": {"S": bucket},
                "registers": {"B": packed_registers(registers)},
                "version": {"N": str(version + 1)},
                **labels,
            },
            "ConditionExpression": condition,
            "ExpressionAttributeNames": {"#version": "version"},
            **({"ExpressionAttributeValues": values} if values else {}),
        }

    def _read(self, code: str, bucket: str) -> tuple[int, bytearray]:
        try:
            item = self._client.get_item(
                TableName=self._table,
                Key={"code": {"S": code}, "bucket": {"S": bucket}},
                ConsistentRead=True,
            ).get("Item")
        except (BotoCoreError, ClientError) as error:
            raise StorageUnavailable(f"visitor sketch not read: {error}") from error
        if not item:
            return 0, bytearray(REGISTERS)
        return int(item["version"]["N"]), unpacked_registers(item["registers"]["B"])

    def _remember(self, code: str, bucket: str, version: int, registers: bytearray) -> None:
        if len(self._known) >= MAX_REMEMBERED:
            self._known.clear()
        self._known[(code, bucket)] = (version, registers)
