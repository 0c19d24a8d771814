"""A list request's filter and page (RFC 7644 3.4.2): the `eq` filters identity providers send
(Okta's and Entra's `userName eq "…"`, `externalId eq "…"`, a group's `displayName eq "…"`),
and 1-based paging by startIndex and count. Any other filter is refused as invalidFilter."""

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from shortlink.numbers import NotAWholeNumber, whole_number
from shortlink.scim.errors import ScimProblem

MAX_FILTER_CHARS = 512
MAX_COUNT = 100
# attribute eq "value": the value a JSON string (escapes as JSON has them).
EQ_FILTER = re.compile(r'\s*([A-Za-z][A-Za-z0-9.]*)\s+eq\s+("(?:[^"\\]|\\.)*")\s*', re.IGNORECASE)
CASE_INSENSITIVE = {"username", "displayname"}  # caseExact false in RFC 7643's schemas

T = TypeVar("T")


@dataclass(frozen=True)
class Equality:
    attribute: str  # lower case
    value: str

    def matches(self, values: Mapping[str, str]) -> bool:
        found = values.get(self.attribute)
        if found is None:
            return False
        if self.attribute in CASE_INSENSITIVE:
            return found.lower() == self.value.lower()
        return found == self.value


def parsed_filter(text: str | None, attributes: frozenset[str]) -> Equality | None:
    """The `attribute eq "value"` filter `text` spells, of one of `attributes` (lower case);
    None without a filter; ScimProblem 400 invalidFilter for anything else."""
    if not text:
        return None
    match = EQ_FILTER.fullmatch(text) if len(text) <= MAX_FILTER_CHARS else None
    if match is None:
        raise ScimProblem(400, 'filter: only attribute eq "value" is supported', "invalidFilter")
    attribute = match.group(1).lower()
    if attribute not in attributes:
        raise ScimProblem(400, f"filter: {match.group(1)} cannot be filtered on", "invalidFilter")
    try:
        value = json.loads(match.group(2))
    except ValueError:
        raise ScimProblem(400, "filter: the value is not a valid string", "invalidFilter") from None
    return Equality(attribute, value)


@dataclass(frozen=True)
class Page:
    start_index: int  # 1-based
    count: int

    def of(self, items: Sequence[T]) -> list[T]:
        return list(items[self.start_index - 1 : self.start_index - 1 + self.count])


def _number(query: Mapping[str, str], name: str, default: int) -> int:
    text = query.get(name)
    if text is None or text == "":
        return default
    try:
        return whole_number(text, name, signed=True)
    except NotAWholeNumber as error:
        raise ScimProblem(400, str(error), "invalidValue") from None


def page_of(query: Mapping[str, str]) -> Page:
    """The page a list request asks: startIndex below 1 is 1, count is kept to 0..MAX_COUNT (RFC
    7644 lets a server return fewer than asked)."""
    start = max(1, _number(query, "startIndex", 1))
    count = min(MAX_COUNT, max(0, _number(query, "count", MAX_COUNT)))
    return Page(start, count)


ALWAYS_RETURNED = frozenset({"schemas", "id"})


def _names(text: str | None) -> frozenset[str]:
    return frozenset(name.strip().lower().split(".", 1)[0] for name in (text or "").split(",") if name.strip())


def projected(document: dict[str, Any], query: Mapping[str, str]) -> dict[str, Any]:
    """`document` with only the top-level `attributes` asked, or without the `excludedAttributes`
    (RFC 7644 3.4.2.5); schemas and id are always returned."""
    wanted, unwanted = _names(query.get("attributes")), _names(query.get("excludedAttributes"))
    return {
        name: value
        for name, value in document.items()
        if name.lower() in ALWAYS_RETURNED or ((not wanted or name.lower() in wanted) and name.lower() not in unwanted)
    }
