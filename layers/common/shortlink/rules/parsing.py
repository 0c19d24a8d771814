"""Reading and validating a link's rules from their JSON form, as owners write it (every key
optional):

    {"allow":  {"countries": ["DE", "AT"], "devices": ["mobile"], "browsers": [...], "os": [...],
                "ips": ["203.0.113.0/24", "2001:db8::/32"]},
     "deny":   {... the same keys ...},
     "routes": [{"countries": ["FR"], "url": "https://example.fr"},
                {"os": ["ios"], "devices": ["mobile", "tablet"], "url": "https://apps.apple.com/..."},
                {"languages": ["de"], "url": "https://example.com/de"},
                {"time": {"from": "09:00", "to": "17:00", "days": ["mon", "tue"]}, "url": "..."},
                {"split": [{"url": "https://a.example", "weight": 70},
                           {"url": "https://b.example", "weight": 30}]}]}

Validated when saved, so an error names its field (`rules.routes[1].split[0].weight`).
"""

import contextlib
import ipaddress
import json
import re
from collections.abc import Callable
from typing import Any

from shortlink.errors import InvalidLinkOption, InvalidUrl
from shortlink.rules.countries import COUNTRY_CODES
from shortlink.rules.model import (
    ACCESS_KEYS,
    LANGUAGE_PATTERN,
    Conditions,
    IpNetwork,
    Json,
    LinkRules,
    Route,
    RulesDocument,
    TimeWindow,
    Variant,
)
from shortlink.rules.user_agents import BROWSERS, DEVICES, OPERATING_SYSTEMS

MAX_ROUTES = 20
MAX_LIST_ENTRIES = 50
MAX_IP_ENTRIES = 100
MAX_VARIANTS = 10
MAX_WEIGHT = 10_000
WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
ROUTE_CONDITION_KEYS = ("countries", "devices", "browsers", "os", "languages", "time")
CLOCK_PATTERN = re.compile(r"([01][0-9]|2[0-3]):([0-5][0-9])|24:00")  # ASCII digits only


def stored_rules(text: str) -> LinkRules:
    """Rules as the store keeps them (their normalised JSON, validated when saved)."""
    return parse_rules(json.loads(text))


def parse_rules(document: object, check_url: Callable[[str], str] = str) -> LinkRules:
    """Validate an owner's rules; every error names its field. `check_url` validates (and
    normalises) each destination, raising InvalidUrl."""
    if not isinstance(document, dict):
        raise InvalidLinkOption("rules", "rules: must be an object")
    _known_keys(document, ("allow", "deny", "routes"), "rules")
    normalised: RulesDocument = {}
    access: dict[str, Conditions | None] = {"allow": None, "deny": None}
    for name in ("allow", "deny"):
        if name in document:
            conditions, shown = _conditions(document[name], ACCESS_KEYS, f"rules.{name}")
            access[name] = conditions
            normalised[name] = shown
    routes: list[Route] = []
    if "routes" in document:
        given = document["routes"]
        _require(isinstance(given, list), "rules.routes", "must be a list")
        _require(len(given) <= MAX_ROUTES, "rules.routes", f"at most {MAX_ROUTES} routes")
        shown_routes: list[Json] = []
        for index, route in enumerate(given):
            parsed, shown = _route(route, f"rules.routes[{index}]", check_url)
            routes.append(parsed)
            shown_routes.append(shown)
        normalised["routes"] = shown_routes
    return LinkRules(allow=access["allow"], deny=access["deny"], routes=tuple(routes), document=normalised)


def _require(condition: bool, field: str, message: str) -> None:
    if not condition:
        raise InvalidLinkOption(field, f"{field}: {message}")


def _known_keys(document: dict[str, Any], allowed: tuple[str, ...], field: str) -> None:
    for key in document:
        _require(key in allowed, f"{field}.{key}", f"unknown field; expected one of {', '.join(allowed)}")


def _strings(value: Any, field: str, limit: int) -> list[str]:
    _require(isinstance(value, list) and len(value) > 0, field, "must be a non-empty list")
    _require(len(value) <= limit, field, f"at most {limit} entries")
    for index, entry in enumerate(value):
        _require(isinstance(entry, str) and entry != "", f"{field}[{index}]", "must be a non-empty string")
    return list(dict.fromkeys(value))


def _vocabulary(value: Any, field: str, allowed: frozenset[str], normalise: Callable[[str], str]) -> list[str]:
    entries = [normalise(entry) for entry in _strings(value, field, MAX_LIST_ENTRIES)]
    for index, entry in enumerate(entries):
        _require(entry in allowed, f"{field}[{index}]", f"{entry!r} is not one of {', '.join(sorted(allowed))}")
    return list(dict.fromkeys(entries))


def _conditions(value: Any, keys: tuple[str, ...], field: str) -> tuple[Conditions, dict[str, Any]]:
    _require(isinstance(value, dict), field, "must be an object")
    _known_keys(value, keys, field)
    shown: dict[str, Any] = {}
    if "countries" in value:
        countries = _strings(value["countries"], f"{field}.countries", MAX_LIST_ENTRIES)
        for index, country in enumerate(countries):
            _require(
                country.upper() in COUNTRY_CODES,
                f"{field}.countries[{index}]",
                f"{country!r} is not an ISO 3166-1 alpha-2 country code (XX: unknown country)",
            )
        shown["countries"] = list(dict.fromkeys(country.upper() for country in countries))
    for key, allowed in (("devices", DEVICES), ("browsers", BROWSERS), ("os", OPERATING_SYSTEMS)):
        if key in value:
            shown[key] = _vocabulary(value[key], f"{field}.{key}", allowed, str.lower)
    networks: list[IpNetwork] = []
    if "ips" in value:
        for index, entry in enumerate(_strings(value["ips"], f"{field}.ips", MAX_IP_ENTRIES)):
            networks.append(_network(entry, f"{field}.ips[{index}]"))
        shown["ips"] = [str(network) for network in dict.fromkeys(networks)]
    if "languages" in value:
        languages = [tag.lower() for tag in _strings(value["languages"], f"{field}.languages", MAX_LIST_ENTRIES)]
        for index, tag in enumerate(languages):
            _require(
                LANGUAGE_PATTERN.fullmatch(tag) is not None,
                f"{field}.languages[{index}]",
                f"{tag!r} is not a language tag (e.g. en, de-AT)",
            )
        shown["languages"] = list(dict.fromkeys(languages))
    window = None
    if "time" in value:
        window, shown["time"] = _time_window(value["time"], f"{field}.time")
    conditions = Conditions(
        countries=frozenset(shown.get("countries", ())),
        devices=frozenset(shown.get("devices", ())),
        browsers=frozenset(shown.get("browsers", ())),
        os=frozenset(shown.get("os", ())),
        ips=tuple(dict.fromkeys(networks)),
        languages=tuple(shown.get("languages", ())),
        time=window,
    )
    return conditions, shown


def _network(entry: str, field: str) -> IpNetwork:
    try:
        return ipaddress.ip_network(entry.strip(), strict=True)
    except ValueError as error:
        hint = ""
        with contextlib.suppress(ValueError):
            hint = f" (did you mean {ipaddress.ip_network(entry.strip(), strict=False)}?)"
        raise InvalidLinkOption(
            field, f"{field}: {entry!r} is not an IPv4/IPv6 address or CIDR: {error}{hint}"
        ) from None


def _minutes(value: Any, field: str) -> int:
    _require(
        isinstance(value, str) and CLOCK_PATTERN.fullmatch(value) is not None, field, "must be HH:MM (UTC), 00:00-24:00"
    )
    hours, minutes = value.split(":")
    return int(hours) * 60 + int(minutes)


def _time_window(value: Any, field: str) -> tuple[TimeWindow, dict[str, Any]]:
    _require(isinstance(value, dict), field, "must be an object")
    _known_keys(value, ("from", "to", "days"), field)
    _require(("from" in value) == ("to" in value), field, "give both from and to, or neither")
    _require("from" in value or "days" in value, field, "give from and to, days, or both")
    shown: dict[str, Any] = {}
    start = end = None
    if "from" in value:
        start, end = _minutes(value["from"], f"{field}.from"), _minutes(value["to"], f"{field}.to")
        _require(start < 1440, f"{field}.from", "must be HH:MM (UTC), 00:00-23:59")
        _require(
            start % 1440 != end % 1440,
            f"{field}.to",
            "must differ from from (the window would be empty or the whole day)",
        )
        shown.update({"from": value["from"], "to": value["to"]})
    days: list[str] = []
    if "days" in value:
        days = _vocabulary(value["days"], f"{field}.days", frozenset(WEEKDAYS), str.lower)
        shown["days"] = days
    window = TimeWindow(start=start, end=end, days=frozenset(WEEKDAYS.index(day) for day in days))
    return window, shown


def _destination(value: Any, field: str, check_url: Callable[[str], str]) -> str:
    _require(isinstance(value, str) and value != "", field, "must be a URL")
    try:
        return check_url(value)
    except InvalidUrl as error:
        raise InvalidLinkOption(field, f"{field}: {error}") from None


def _route(value: Any, field: str, check_url: Callable[[str], str]) -> tuple[Route, dict[str, Any]]:
    _require(isinstance(value, dict), field, "must be an object")
    _known_keys(value, (*ROUTE_CONDITION_KEYS, "url", "split"), field)
    _require(("url" in value) != ("split" in value), field, "give exactly one of url and split")
    conditions, shown = _conditions(
        {key: value[key] for key in ROUTE_CONDITION_KEYS if key in value}, ROUTE_CONDITION_KEYS, field
    )
    if "url" in value:
        url = _destination(value["url"], f"{field}.url", check_url)
        return Route(when=conditions, url=url), {**shown, "url": url}
    given = value["split"]
    _require(
        isinstance(given, list) and 2 <= len(given) <= MAX_VARIANTS,
        f"{field}.split",
        f"must list 2-{MAX_VARIANTS} variants",
    )
    variants = []
    for index, variant in enumerate(given):
        where = f"{field}.split[{index}]"
        _require(isinstance(variant, dict), where, "must be an object")
        _known_keys(variant, ("url", "weight"), where)
        weight = variant.get("weight")
        _require(
            isinstance(weight, int) and not isinstance(weight, bool) and 1 <= weight <= MAX_WEIGHT,
            f"{where}.weight",
            f"must be a whole number from 1 to {MAX_WEIGHT}",
        )
        variants.append(Variant(url=_destination(variant.get("url"), f"{where}.url", check_url), weight=weight))
    shown_split = [{"url": variant.url, "weight": variant.weight} for variant in variants]
    return Route(when=conditions, split=tuple(variants)), {**shown, "split": shown_split}
