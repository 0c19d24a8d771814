"""The links of a region away from home, in a deployment of several regions (DynamoDB global
tables: last writer wins per item, and a conditional write sees only its own region's replica).

Every write whose uniqueness or order matters (a custom slug and its claim, edits, deletes,
restores) and the API's reads go to the home region's table, where they are decided in one
place. A link whose code is unique by construction (a generated code of this region's id
partition, a 128-bit private code) is written here, with no cross-region call, unless its later
writes are the home region's (the click budget of max_clicks). Such a link reaches the home
region within the replication lag: until then it reads from here, and an edit of it answers
"retry shortly" rather than "not found".
"""

from datetime import datetime

from shortlink.adapters.dynamodb.link_store import DynamoLinkRepository
from shortlink.errors import LinkNotFound, StorageUnavailable
from shortlink.links.model import Link, LinkChanges


class AwayLinkRepository:
    """A LinkRepository: the home region's table for what it decides, this region's for the rest."""

    def __init__(self, home: DynamoLinkRepository, here: DynamoLinkRepository) -> None:
        self._home = home
        self._here = here

    def add(self, link: Link) -> None:
        (self._here if link.max_clicks is None else self._home).add(link)

    def add_with_slug(self, link: Link, slug_key: str) -> None:
        self._home.add_with_slug(link, slug_key)

    def existing_codes(self, codes: list[str]) -> set[str]:
        return self._home.existing_codes(codes)

    def is_claimed(self, slug_key: str) -> bool:
        # The generated create's one read stays here: claims made at home within the replication
        # lag are missed, as a claim made between this read and the write always was.
        return self._here.is_claimed(slug_key)

    def get(self, code: str) -> Link | None:
        return self._home.get(code) or self._here.get(code)

    def update(self, code: str, owner: str, changes: LinkChanges) -> Link:
        try:
            return self._home.update(code, owner, changes)
        except LinkNotFound:
            self._on_its_way(code, owner)
            raise

    def set_deleted(self, code: str, owner: str, deleted_at: datetime | None) -> Link:
        try:
            return self._home.set_deleted(code, owner, deleted_at)
        except LinkNotFound:
            self._on_its_way(code, owner)
            raise

    def list_for_owner(
        self,
        owner: str,
        limit: int,
        cursor: str | None,
        tag: str | None,
        utm_campaign: str | None = None,
        domain: str | None = None,
    ) -> tuple[list[Link], str | None]:
        return self._home.list_for_owner(owner, limit, cursor, tag, utm_campaign, domain)

    def _on_its_way(self, code: str, owner: str) -> None:
        """StorageUnavailable (retry shortly) if the home region lacks a link this region has."""
        local = self._here.get(code)
        if local is not None and local.owner == owner:
            raise StorageUnavailable("the link was created in another region and is still replicating")
