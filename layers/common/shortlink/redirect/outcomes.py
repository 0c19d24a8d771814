"""What the redirect answers when it does not redirect: one table from each outcome to its page,
status, metric and orphan visit, and the one renderer of those pages (shortlink.redirect.refusals)."""

from dataclasses import dataclass
from enum import Enum
from typing import Any

HTML_HEADERS = {"Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store"}
PAGE = "<!doctype html><html lang=en><meta charset=utf-8><title>{heading}</title><h1>{heading}</h1><p>{text}</p></html>"


class Fallback(Enum):
    """Where an outcome may redirect instead of showing its page."""

    NONE = "none"
    DOMAIN_NOT_FOUND_URL = "domain"  # the request's domain's not-found URL (shortlink.redirect.domain_pages)
    EXPIRED_URL = "link"  # the link's own expired_url


@dataclass(frozen=True)
class Outcome:
    status: int
    heading: str
    text: str
    metric: str | None = None  # counted once per answer (shortlink.redirect.click_dispatch)
    orphan: str | None = None  # the orphan visit it records, as the stats name it (shortlink.clicks.orphans)
    fallback: Fallback = Fallback.NONE
    retry_after: bool = False  # a passing failure: the client may retry in a second

    def page(self, extra_headers: dict[str, str] | None = None) -> dict[str, Any]:
        headers = {**HTML_HEADERS, **(extra_headers or {})}
        if self.retry_after:
            headers["Retry-After"] = "1"
        return {
            "statusCode": self.status,
            "headers": headers,
            "body": PAGE.format(heading=self.heading, text=self.text),
        }


_NOT_FOUND = ("Link not found", "This short link does not exist.")
# A host that is none of the stack's domains, or a file of a domain that has none of that name.
NO_SUCH_ADDRESS = Outcome(404, *_NOT_FOUND, metric="NotFound")
NOT_FOUND_FILE = Outcome(404, *_NOT_FOUND)
UNKNOWN = Outcome(404, *_NOT_FOUND, "NotFound", "unknown", Fallback.DOMAIN_NOT_FOUND_URL)
NOT_YET_VALID = Outcome(404, *_NOT_FOUND, "NotFound", "not_yet_valid", Fallback.DOMAIN_NOT_FOUND_URL)  # reveals nothing
EXPIRED = Outcome(410, "Link expired", "This short link has expired.", "Expired", "expired", Fallback.EXPIRED_URL)
DELETED = Outcome(
    410, "Link removed", "This short link was removed by its owner.", "Deleted", "deleted", Fallback.EXPIRED_URL
)
DENIED = Outcome(403, "Not available", "This short link is not available to you.", "RuleDenials")
USED_UP = Outcome(
    410,
    "Link used up",
    "This short link has been followed as many times as it allows.",
    "ClicksExhausted",
    "used_up",
    Fallback.EXPIRED_URL,
)
WRONG_METHOD = Outcome(405, "Method not allowed", "Follow this link with GET.")
# A browser's prefetch or prerender, declined as Chrome expects (503, no-store: never cached, so
# the navigation that may follow reaches the redirect and is the one counted). Counted apart, so
# that the 5xx alarm leaves these out (monitoring.yaml, ApiErrorRateAlarm).
PREFETCH_DECLINED = Outcome(503, "Prefetch declined", "Follow this link to open it.", "PrefetchDeclined")
TOO_LARGE = Outcome(413, "Request too large", "The form sent more than this page accepts.")
TOO_LONG = Outcome(414, "Address too long", "This link cannot carry so many parameters.")
UNAVAILABLE = Outcome(
    503, "Temporarily unavailable", "Please try again in a moment.", "LookupFailures", retry_after=True
)
