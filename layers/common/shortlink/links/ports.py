"""The ports the link use cases are written against: where links are kept, and the budgets a
create or a follow takes from."""

from datetime import datetime
from typing import Protocol

from shortlink.links.model import Link, LinkChanges
from shortlink.links.qr_styles import QrStyle


class LinkSource(Protocol):
    def get(self, code: str) -> Link | None:
        """The link with this code, or None."""


class Allowance(Protocol):
    def take(self) -> None:
        """Count one use; raise RateLimited when none is left."""

    def give_back(self) -> None:
        """Uncount the use taken, for a request refused after all."""


class ClickBudget(Protocol):
    def take(self, code: str) -> bool:
        """Count one follow of a link with max_clicks, atomically; False once all are used."""


class LinkRepository(LinkSource, Protocol):
    def add(self, link: Link) -> None:
        """Store a new link; raise CodeTaken if its code exists (a conditional put)."""

    def update(self, code: str, owner: str, changes: LinkChanges) -> Link:
        """Apply `changes` in one conditional write if `owner` owns the link; raise LinkNotFound
        otherwise. Returns the link as stored."""

    def set_deleted(self, code: str, owner: str, deleted_at: datetime | None) -> Link:
        """Mark the link deleted (or restore it with None) if `owner` owns it; else LinkNotFound."""

    def list_for_owner(
        self,
        owner: str,
        limit: int,
        cursor: str | None,
        tag: str | None,
        utm_campaign: str | None = None,
        domain: str | None = None,
    ) -> tuple[list[Link], str | None]:
        """The owner's links, newest first, a page at a time (those with `tag`, those of
        `utm_campaign`, those of `domain`: "" the default's); the cursor of the next page."""

    def add_with_slug(self, link: Link, slug_key: str) -> None:
        """Store a link whose code is a custom slug, together with a claim on `slug_key`, in one
        transaction; raise SlugTaken if the code or the claim exists."""

    def existing_codes(self, codes: list[str]) -> set[str]:
        """Which of `codes` belong to a link (reads only)."""

    def is_claimed(self, slug_key: str) -> bool:
        """Whether a custom slug holds the claim on `slug_key` (a read)."""


class LinkMoves(Protocol):
    def move(self, link: Link, moved: Link, slug_key: str | None) -> None:
        """Write `moved` (the link on another domain) under its key if none is there, with the
        claim of its custom slug there (`slug_key`), and remove `link` if it is unchanged;
        CodeTaken when the key or the claim is taken."""


class QrStyles(Protocol):
    def style_of(self, owner: str, link_key: str | None) -> QrStyle | None:
        """The style saved for the link (`link_key`), or the workspace's default with None; None if unsaved."""

    def save(self, owner: str, link_key: str | None, style: QrStyle) -> None:
        """Keep `style` for the link, or as the workspace's default with None."""

    def forget(self, owner: str, link_key: str | None) -> None:
        """Drop the link's style (its code follows the default again), or the default with None."""
