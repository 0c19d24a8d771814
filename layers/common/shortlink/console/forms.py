"""The console's link form: HTML form fields read into the link options the API takes, and
errors sorted to the field they name. Pure code.

Each field is checked with the API's own field types (shortlink.schemas.links), so a field gets
the message the API's 422 would give; the domain then checks how the options fit together.
"""

import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pydantic import TypeAdapter, ValidationError

from shortlink.api.errors import describe_validation_errors
from shortlink.links.model import LinkChanges, LinkOptions
from shortlink.numbers import NotAWholeNumber, whole_number
from shortlink.rules.model import ACCESS_KEYS
from shortlink.schemas.links import DestinationOptions, MaxClicks, Moment, Password, RedirectType, Tags, Title, Url

Form = dict[str, list[str]]
FIELD_TYPES: dict[str, Any] = {
    "url": Url,
    "title": Title,
    "tags": Tags,
    "redirect_type": RedirectType,
    "valid_from": Moment,
    "expires_at": Moment,
    "max_clicks": MaxClicks,
    "password": Password,
}
ADAPTERS = {name: TypeAdapter(kind) for name, kind in FIELD_TYPES.items()}
PREVIEW_FIELDS = ("title", "description", "image")
UTM_FIELDS = ("source", "medium", "campaign", "term", "content")
# Rows shown for routes and A/B variants besides the link's own (the page adds more).
SPARE_ROUTES = 1
SPARE_VARIANTS = 2
LIST_SEPARATOR = re.compile(r"[\s,]+")


class FormErrors(Exception):
    """Messages keyed by the form field (or section) they belong to."""

    def __init__(self, errors: dict[str, str]) -> None:
        super().__init__("; ".join(errors.values()))
        self.errors = errors


def value(form: Form, name: str) -> str:
    return (form.get(name) or [""])[0].strip()


def words(text: str) -> list[str]:
    return [word for word in LIST_SEPARATOR.split(text) if word]


def field_of(api_field: str) -> str:
    """The form field or section an API error location names: `rules.allow.countries[0]` is
    the allow list's countries field, any route's error belongs to the routes section."""
    if api_field.startswith("rules.routes"):
        return "routes"
    parts = api_field.replace("[", ".").split(".")
    if parts[0] in ("preview", "utm") and len(parts) > 1:
        return f"{parts[0]}_{parts[1]}"
    if parts[0] == "rules" and len(parts) > 2 and parts[1] in ("allow", "deny"):
        return f"{parts[1]}_{parts[2]}"
    return "rules" if parts[0] == "rules" else parts[0]


def moment_value(form: Form, name: str) -> str:
    """A date-time field's UTC moment (ISO 8601), or "" when empty."""
    # The page's script writes the UTC moment; without script, the picker's value is read as UTC.
    given = value(form, name)
    local = value(form, f"{name}_local")
    return given or (f"{local}Z" if local else "")


def _raw_fields(form: Form, errors: dict[str, str]) -> dict[str, Any]:
    """The typed fields given (non-empty), as the API's JSON would carry them; a number that is
    not one goes to `errors`."""
    raw: dict[str, Any] = {}
    for name in ("url", "title", "password"):
        if value(form, name):
            raw[name] = value(form, name)
    raw["tags"] = list(dict.fromkeys(words(value(form, "tags"))))
    for name in ("valid_from", "expires_at"):
        if moment_value(form, name):
            raw[name] = moment_value(form, name)
    for name in ("redirect_type", "max_clicks"):
        if text := value(form, name):
            try:
                raw[name] = whole_number(text, name)  # its range: the API's type, below
            except NotAWholeNumber as error:
                errors[name] = str(error)
    return raw


def checked_fields(form: Form) -> dict[str, Any]:
    """Each given field validated by its API type; FormErrors naming every bad one."""
    checked: dict[str, Any] = {}
    errors: dict[str, str] = {}
    for name, raw in _raw_fields(form, errors).items():
        try:
            checked[name] = ADAPTERS[name].validate_python(raw)
        except ValidationError as error:
            located = [{**item, "loc": (name, *item["loc"])} for item in error.errors()]
            errors[name] = describe_validation_errors(located, location_prefix=0)
    if errors:
        raise FormErrors(errors)
    return checked


def _some(form: Form, prefix: str, names: tuple[str, ...]) -> dict[str, str] | None:
    """The object of `prefix_name` fields that are filled in, or None when none is."""
    given = {name: value(form, f"{prefix}_{name}") for name in names if value(form, f"{prefix}_{name}")}
    return given or None


def destination_fields(form: Form) -> dict[str, Any]:
    """Query forwarding, the fallback URL, crawling, the preview card and UTM fields, checked by
    the API's own model, as LinkOptions and LinkChanges take them; FormErrors at each bad field."""
    raw = {
        "forward_query": value(form, "drop_query") != "on",
        "expired_url": value(form, "expired_url") or None,
        "crawlable": value(form, "crawlable") == "on",
        "preview": _some(form, "preview", PREVIEW_FIELDS),
        "utm": _some(form, "utm", UTM_FIELDS),
    }
    try:
        return DestinationOptions.model_validate(raw).destination_options()
    except ValidationError as error:
        errors: dict[str, str] = {}
        for item in error.errors():
            name = field_of(".".join(str(part) for part in item["loc"][:2]))
            errors.setdefault(name, describe_validation_errors([item], location_prefix=0))
        raise FormErrors(errors) from None


def rules_document(form: Form) -> dict[str, Any] | None:
    """The rules the form describes (access lists, routes, then the A/B split), or None."""
    document: dict[str, Any] = {}
    for access in ("allow", "deny"):
        lists = {key: words(value(form, f"{access}_{key}")) for key in ACCESS_KEYS}
        if any(lists.values()):
            document[access] = {key: entries for key, entries in lists.items() if entries}
    routes = [route for index in range(rows(form, "route")) if (route := _route(form, f"route_{index}_"))]
    split = [
        {"url": value(form, f"variant_{index}_url"), "weight": _weight(form, index)}
        for index in range(rows(form, "variant"))
        if value(form, f"variant_{index}_url")
    ]
    if split:
        routes.append({"split": split})
    if routes:
        document["routes"] = routes
    return document or None


def rows(form: Form, prefix: str) -> int:
    """How many rows of `prefix` fields the form carries."""
    indexes = [int(match.group(1)) for name in form if (match := re.fullmatch(rf"{prefix}_([0-9]{{1,2}})_\w+", name))]
    return max(indexes, default=-1) + 1


def _weight(form: Form, index: int) -> int | str:
    """A variant's weight as a number; left empty, as typed (the rules' check names it)."""
    text = value(form, f"variant_{index}_weight")
    try:
        return whole_number(text, f"variant {index + 1}'s weight") if text else text
    except NotAWholeNumber as error:
        raise FormErrors({"routes": str(error)}) from None


def _route(form: Form, prefix: str) -> dict[str, Any] | None:
    url = value(form, f"{prefix}url")
    if not url:
        return None
    route: dict[str, Any] = {"url": url}
    for key in ("countries", "devices", "os", "languages"):
        if entries := words(value(form, f"{prefix}{key}")):
            route[key] = entries
    window: dict[str, Any] = {}
    if value(form, f"{prefix}time_from") or value(form, f"{prefix}time_to"):
        window.update({"from": value(form, f"{prefix}time_from"), "to": value(form, f"{prefix}time_to")})
    if days := words(value(form, f"{prefix}days")):
        window["days"] = days
    if window:
        route["time"] = window
    return route


def link_options(form: Form) -> tuple[str, LinkOptions]:
    """The destination and options of a create form; FormErrors if a field is bad."""
    fields = checked_fields(form)
    if "url" not in fields:
        raise FormErrors({"url": "url: field required"})
    options = LinkOptions(
        slug=value(form, "slug") or None,
        valid_from=fields.get("valid_from"),
        expires_at=fields.get("expires_at"),
        redirect_type=fields.get("redirect_type", 302),
        tags=tuple(fields["tags"]),
        title=fields.get("title"),
        private=value(form, "private") == "on",
        max_clicks=fields.get("max_clicks"),
        password=fields.get("password"),
        rules=rules_document(form),
        **destination_fields(form),
    )
    return fields["url"], options


def link_changes(form: Form) -> LinkChanges:
    """An edit form as changes: every field is set to what the form shows, and an emptied
    optional field is removed (the password only when asked to)."""
    fields = checked_fields(form)
    if "url" not in fields:
        raise FormErrors({"url": "url: field required"})
    rules = rules_document(form)
    fields.update(destination_fields(form))
    shown = {"valid_from", "expires_at", "title", "max_clicks", "rules", "expired_url", "preview", "utm"}
    cleared = {name for name in shown if fields.get(name) is None and not (name == "rules" and rules)}
    if value(form, "remove_password") == "on":
        cleared.add("password")
    return LinkChanges(
        url=fields["url"],
        valid_from=fields.get("valid_from"),
        expires_at=fields.get("expires_at"),
        redirect_type=fields.get("redirect_type"),
        tags=tuple(fields["tags"]),
        title=fields.get("title"),
        max_clicks=fields.get("max_clicks"),
        password=fields.get("password"),
        rules=rules,
        forward_query=fields["forward_query"],
        expired_url=fields["expired_url"],
        crawlable=fields["crawlable"],
        preview=fields["preview"],
        utm=fields["utm"],
        cleared=frozenset(cleared),
    )


@dataclass
class FormState:
    """What a form shows: the values typed (or the link's) and the errors at each field."""

    values: Form = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)

    def get(self, name: str) -> str:
        return value(self.values, name)

    def shows(self, names: list[str]) -> bool:
        """Whether a section holding these fields starts open: one has a value or an error."""
        return any(self.get(name) or name in self.errors for name in names)


def form_of_link(link_view: dict[str, Any]) -> Form:
    """A stored link (as the API shows it) as the edit form's fields."""
    form: Form = {
        "url": [link_view["url"]],
        "title": [link_view["title"] or ""],
        "tags": [" ".join(link_view["tags"])],
        "redirect_type": [str(link_view["redirect_type"])],
        "max_clicks": [str(link_view["max_clicks"] or "")],
    }
    for name in ("valid_from", "expires_at"):
        form[name] = [_iso(link_view[name])]
    form["drop_query"] = ["" if link_view["forward_query"] else "on"]
    form["crawlable"] = ["on" if link_view["crawlable"] else ""]
    form["expired_url"] = [link_view["expired_url"] or ""]
    for prefix in ("preview", "utm"):
        for name, given in (link_view[prefix] or {}).items():
            form[f"{prefix}_{name}"] = [given]
    rules = link_view["rules"] or {}
    for access in ("allow", "deny"):
        for key, entries in (rules.get(access) or {}).items():
            form[f"{access}_{key}"] = [" ".join(entries)]
    routes = [route for route in rules.get("routes", []) if "split" not in route]
    for index, route in enumerate(routes):
        for key in ("countries", "devices", "os", "languages"):
            form[f"route_{index}_{key}"] = [" ".join(route.get(key, []))]
        window = route.get("time", {})
        form[f"route_{index}_time_from"] = [window.get("from", "")]
        form[f"route_{index}_time_to"] = [window.get("to", "")]
        form[f"route_{index}_days"] = [" ".join(window.get("days", []))]
        form[f"route_{index}_url"] = [route.get("url", "")]
    variants: list[dict[str, Any]] = next((route["split"] for route in rules.get("routes", []) if "split" in route), [])
    for index, variant in enumerate(variants):
        form[f"variant_{index}_url"] = [variant["url"]]
        form[f"variant_{index}_weight"] = [str(variant["weight"])]
    return form


def _iso(moment: Any) -> str:
    if isinstance(moment, datetime):
        return moment.isoformat().replace("+00:00", "Z")
    return str(moment or "")
