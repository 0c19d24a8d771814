"""A link as a links-table item in DynamoDB's own format: the one mapping between `Link` and its
item, for the pynamodb repository (adapters/dynamodb/link_store.py) and the redirect's botocore reader
(adapters/dynamodb/link_reader.py) alike.

This table is the one schema of a link's attributes: pynamodb's LinkItem declares each of them
from its `kind` (adding only the key and what is derived: the TTL, the index keys, the click
count), the repository hands it these items through `from_raw_data` and reads its items back with
`serialize`. Nothing here imports pynamodb: the redirect pays for no more than this module.
"""

from collections.abc import Callable, Mapping
from dataclasses import MISSING, dataclass, fields
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from shortlink.domains.model import split_key
from shortlink.errors import StorageUnavailable
from shortlink.links.model import Link

if TYPE_CHECKING:
    from shortlink.links.destinations import Utm
    from shortlink.links.previews import LinkPreview
    from shortlink.rules.model import LinkRules

AttributeValue = dict[str, Any]  # {"S": "..."}, {"N": "3"}, {"BOOL": true}, {"L": [...]}, {"M": {...}}
Item = dict[str, AttributeValue]

# pynamodb's UTCDateTimeAttribute format (its writes pad the year to four digits the same way).
DATETIME_FORMAT = "%Y-%m-%dT%H:%M:%S.%f%z"
# The links table's sparse index of crawlable links: `crawlable_key` holds CRAWLABLE while crawlable.
CRAWLABLE_INDEX = "Crawlable"
CRAWLABLE = "crawlable"
# An expired link answers 410 for this long, then DynamoDB's TTL (`expires_at_epoch`) removes it.
EXPIRED_LINK_KEPT = timedelta(days=30)


@dataclass(frozen=True)
class Attribute:
    """How one Link field is stored: `encode` gives None for a value that is not stored (the
    field's default, read back from an absent attribute); `kind` says what the attribute holds,
    from which the pynamodb repository declares it (text, moment, number, flag, texts, fields)."""

    encode: Callable[[Any], AttributeValue | None]
    decode: Callable[[AttributeValue], Any]
    kind: str


def _text(value: str | None) -> AttributeValue | None:
    return None if value is None else {"S": value}


def _moment(value: datetime | None) -> AttributeValue | None:
    return None if value is None else {"S": value.astimezone(UTC).strftime(DATETIME_FORMAT).zfill(31)}


def _read_moment(value: AttributeValue) -> datetime:
    return datetime.strptime(value["S"], DATETIME_FORMAT)


def _number(value: int | None) -> AttributeValue | None:
    return None if value is None else {"N": str(value)}


def _true_only(value: bool) -> AttributeValue | None:
    return {"BOOL": True} if value else None


def _fields(value: "Utm | LinkPreview | None") -> AttributeValue | None:
    return None if value is None else {"M": {name: {"S": text} for name, text in value.document().items()}}


def _strings(value: AttributeValue) -> dict[str, str]:
    return {name: text["S"] for name, text in value["M"].items() if "S" in text}


def _rules(value: "LinkRules | None") -> AttributeValue | None:
    return None if value is None else {"S": rules_json(value.document)}


def _read_rules(value: AttributeValue) -> "LinkRules":
    # Only links with rules load the rules engine (and ipaddress): plain links' cold start is spared.
    from shortlink.rules.parsing import stored_rules

    return stored_rules(value["S"])


def _read_preview(value: AttributeValue) -> "LinkPreview":
    from shortlink.links.previews import LinkPreview

    return LinkPreview(**_strings(value))


def _read_utm(value: AttributeValue) -> "Utm":
    from shortlink.links.destinations import Utm

    return Utm(**_strings(value))


def _read_text(value: AttributeValue) -> str:
    return str(value["S"])


def _read_number(value: AttributeValue) -> int:
    return int(value["N"])


def _read_flag(value: AttributeValue) -> bool:
    return bool(value["BOOL"])


_TEXT = Attribute(_text, _read_text, "text")
_MOMENT = Attribute(_moment, _read_moment, "moment")
_NUMBER = Attribute(_number, _read_number, "number")
_FLAG = Attribute(_true_only, _read_flag, "flag")
# Each Link field but `code` and `domain` (both in the item's key), under its own name.
ATTRIBUTES: dict[str, Attribute] = {
    "url": _TEXT,
    "owner": _TEXT,
    "created_at": _MOMENT,
    "valid_from": _MOMENT,
    "expires_at": _MOMENT,
    "redirect_type": Attribute(lambda status: {"N": str(status)}, _read_number, "number"),
    "tags": Attribute(
        lambda tags: {"L": [{"S": tag} for tag in tags]} if tags else None,
        lambda value: tuple(tag["S"] for tag in value["L"]),
        "texts",
    ),
    "title": _TEXT,
    "custom_slug": _FLAG,
    "private": _FLAG,
    "deleted_at": _MOMENT,
    "max_clicks": _NUMBER,
    "password_hash": _TEXT,
    "rules": Attribute(_rules, _read_rules, "text"),
    "forward_query": Attribute(lambda forward: None if forward else {"BOOL": False}, _read_flag, "flag"),  # when off
    "expired_url": _TEXT,
    "crawlable": _FLAG,
    "preview": Attribute(_fields, _read_preview, "fields"),
    "utm": Attribute(_fields, _read_utm, "fields"),
}
DEFAULTS: dict[str, Any] = {
    field.name: field.default for field in fields(Link) if field.name in ATTRIBUTES and field.default is not MISSING
}


def rules_json(document: Mapping[str, object]) -> str:
    import json

    return json.dumps(document, separators=(",", ":"), sort_keys=True)


def expiry_epoch(expires_at: datetime) -> int:
    """The item's TTL: some time after the link expired, so that it answers 410 meanwhile."""
    return int((expires_at + EXPIRED_LINK_KEPT).timestamp())


def stored_attributes(values: Mapping[str, Any]) -> dict[str, AttributeValue | None]:
    """Link field values as the attributes that store them, with the ones derived from them (the
    TTL of `expires_at`, the index key of `crawlable`); None: the attribute is absent. An edit
    writes these, a null in it removes them."""
    stored: dict[str, AttributeValue | None] = {}
    for name, value in values.items():
        stored[name] = ATTRIBUTES[name].encode(value)
        if name == "expires_at":
            stored["expires_at_epoch"] = _number(expiry_epoch(value) if value is not None else None)
        elif name == "crawlable":
            stored["crawlable_key"] = {"S": CRAWLABLE} if value else None
    return stored


def link_item(link: Link) -> Item:
    """The item that stores `link`, under its key (`<host>/<code>` off the default domain)."""
    values = {name: getattr(link, name) for name in ATTRIBUTES}
    item = {name: value for name, value in stored_attributes(values).items() if value is not None}
    item["code"] = {"S": link.key}
    if link.deleted_at is not None:  # robots.txt lists a link only while it can be followed
        item.pop("crawlable_key", None)
    if link.domain:  # for GET /links?domain=; absent on the default domain's, as before domains
        item["domain"] = {"S": link.domain}
    return item


def link_from_item(item: Mapping[str, AttributeValue]) -> Link:
    """The link an item stores (an attribute that is absent is the field's default)."""
    if "created_at" not in item:  # written with every link: an item without it is not one of ours
        raise StorageUnavailable("a links item has no created_at")  # never its code: it may be private
    domain, code = split_key(item["code"]["S"])
    values = {
        name: attribute.decode(item[name]) if name in item else DEFAULTS[name] for name, attribute in ATTRIBUTES.items()
    }
    return Link(code=code, domain=domain, **values)
