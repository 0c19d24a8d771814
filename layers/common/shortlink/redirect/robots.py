"""GET /robots.txt: every path disallowed but the codes of links marked crawlable.

Built from a bounded read, never a table scan: the codes come from the links table's sparse
Crawlable index (one Query of at most MAX_CRAWLABLE codes, keys only), and the text is kept per
execution environment for TTL_SECONDS, so a crawler's requests cost one Query per environment
per TTL at most. Crawlable links beyond MAX_CRAWLABLE stay disallowed (the safe side); Google
reads 500 KiB of a robots.txt, about 30 times what this limit writes. On a stack with several
domains the index holds keys (shortlink.domains): each domain's text allows its own links' codes.
"""

from collections.abc import Callable
from typing import Protocol

from shortlink.domains.model import split_key

MAX_CRAWLABLE = 1000
TTL_SECONDS = 300.0
HEADERS = {"Content-Type": "text/plain; charset=utf-8", "Cache-Control": f"public, max-age={int(TTL_SECONDS)}"}


class CrawlableCodes(Protocol):
    def codes(self, limit: int) -> list[str]:
        """Up to `limit` keys of crawlable links (a default-domain link's key is its code)."""


def robots_txt(codes: list[str]) -> str:
    """Allow lines for `codes` (the most specific rule wins, RFC 9309), then disallow the rest."""
    allowed = "".join(f"Allow: /{code}$\n" for code in sorted(codes))
    return f"User-agent: *\n{allowed}Disallow: /\n"


class CachedRobots:
    """Each domain's robots.txt as last built from one read of the keys, read again once
    TTL_SECONDS have passed by `clock`."""

    def __init__(self, source: CrawlableCodes, clock: Callable[[], float]) -> None:
        self._source = source
        self._clock = clock
        self._keys: list[str] = []
        self._texts: dict[str, str] = {}
        self._fresh_until = float("-inf")

    def text(self, domain: str = "") -> str:
        """The robots.txt of `domain` ("" the default domain)."""
        now = self._clock()
        if now >= self._fresh_until:
            self._keys = self._source.codes(MAX_CRAWLABLE)
            self._texts = {}
            self._fresh_until = now + TTL_SECONDS
        text = self._texts.get(domain)
        if text is None:
            codes = [code for key_domain, code in map(split_key, self._keys) if key_domain == domain]
            text = self._texts[domain] = robots_txt(codes)
        return text
