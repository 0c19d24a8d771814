"""The links of the links table as the edge's sync reads them: each change as its stream
reports it (old and new image), and every link by a scan (the reconciliation's). Items that are
not links (custom slugs' claims) are passed over."""

from collections.abc import Iterator, Mapping
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from shortlink.adapters.dynamodb.link_items import AttributeValue, link_from_item
from shortlink.adapters.dynamodb.link_reader import RedirectTable
from shortlink.errors import StorageUnavailable
from shortlink.links.model import Link

SCAN_PAGE_ITEMS = 1000


def _link(image: Mapping[str, AttributeValue] | None) -> Link | None:
    if not image or "created_at" not in image:
        return None
    return link_from_item(image)


def stream_changes(records: list[dict[str, Any]]) -> list[tuple[Link | None, Link | None]]:
    """(old, new) per stream record of a link, in the stream's order (None: no such image)."""
    changes: list[tuple[Link | None, Link | None]] = []
    for record in records:
        images = record.get("dynamodb") or {}
        old, new = _link(images.get("OldImage")), _link(images.get("NewImage"))
        if old is not None or new is not None:
            changes.append((old, new))
    return changes


class DynamoLinkScan(RedirectTable):
    """Every link of the table, page by page (a consistent read is not needed: the next
    reconciliation repairs what a scan missed)."""

    def links(self) -> Iterator[Link]:
        request: dict[str, Any] = {"TableName": self._table_name, "Limit": SCAN_PAGE_ITEMS}
        while True:
            try:
                page = self._dynamodb().scan(**request)
            except (BotoCoreError, ClientError) as error:
                raise StorageUnavailable(f"links not scanned: {error}") from error
            for item in page.get("Items", []):
                link = _link(item)
                if link is not None:
                    yield link
            if "LastEvaluatedKey" not in page:
                return
            request["ExclusiveStartKey"] = page["LastEvaluatedKey"]
