"""Links and the operations on them, written against the LinkRepository port."""

import re
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

from shortlink.errors import CodeTaken, LinkNotFound, NoFreeCode
from shortlink.urls import validate_destination

if TYPE_CHECKING:  # only create generates codes; the redirect must not import the generator
    from shortlink.codes import CodeGenerator

# A collision means the code was taken by other means than our counter (a restored table,
# a custom slug); a handful of fresh ids is plenty before we give up loudly.
MAX_CODE_ATTEMPTS = 5
# Any code we could have issued: generated base62 codes and (later) custom slugs.
CODE_PATTERN = re.compile(r"[A-Za-z0-9_-]{1,64}")


@dataclass(frozen=True)
class Link:
    code: str
    url: str
    owner: str
    created_at: datetime


class LinkSource(Protocol):
    def get(self, code: str) -> Link | None:
        """The link with this code, or None."""


class LinkRepository(LinkSource, Protocol):
    def add(self, link: Link) -> None:
        """Store a new link; raise CodeTaken if its code exists (a conditional put)."""


def create_link(url: str, owner: str, codes: "CodeGenerator", links: LinkRepository, now: datetime) -> Link:
    """Give `url` a fresh code and store it; the conditional put is the only uniqueness check."""
    url = validate_destination(url)
    for _ in range(MAX_CODE_ATTEMPTS):
        link = Link(code=codes.next_code(), url=url, owner=owner, created_at=now)
        try:
            links.add(link)
        except CodeTaken:
            continue
        return link
    raise NoFreeCode(f"no free code after {MAX_CODE_ATTEMPTS} attempts")


def is_possible_code(code: str) -> bool:
    """Whether we could ever have issued `code`; other codes are never looked up."""
    return CODE_PATTERN.fullmatch(code) is not None


def find_link(code: str, links: LinkSource) -> Link | None:
    """The link with this code; a code we could never have issued is not looked up at all."""
    if not is_possible_code(code):
        return None
    return links.get(code)


def owned_link(code: str, owner: str, links: LinkSource) -> Link:
    """The link if `owner` owns it; another owner's link is reported as missing, not forbidden."""
    link = find_link(code, links)
    if link is None or link.owner != owner:
        raise LinkNotFound(code)
    return link
