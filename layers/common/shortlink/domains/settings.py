"""Per-domain settings: fallback pages (what the domain's root redirects to, where an unknown code
goes instead of the 404 page) and the app-link files iOS and Android fetch from the domain.

One JSON object keyed by domain host name (as in Domains; "*" for every domain without an entry
of its own):

    {"sho.rt": {"root_url": "https://example.com/", "not_found_url": "https://example.com/404",
                "apple_app_site_association": {"applinks": {"details": []}},
                "assetlinks": [{"relation": ["delegate_permission/common.handle_all_urls"], "target": {}}]}}

Read by the redirect only for the requests that need it (a root visit, an unknown code, a
/.well-known file), once per execution environment: never on a link's hit path. Checked when read:
a field that is wrong is named in a ConfigurationError (and the redirect then serves its plain
pages, never a 500).
"""

import json
from dataclasses import dataclass, field
from typing import Any

from shortlink.domains.model import ShortDomains, hostname
from shortlink.errors import ConfigurationError, InvalidUrl
from shortlink.web.urls import validate_destination

EVERY_DOMAIN = "*"
URL_FIELDS = ("root_url", "not_found_url")
# The JSON each file must be (Apple: an object; Digital Asset Links: a list of statements).
APP_FILES: dict[str, type] = {"apple_app_site_association": dict, "assetlinks": list}
JSON_TYPE_NAMES: dict[type, str] = {dict: "object", list: "array"}
MAX_APP_FILE_BYTES = 128 * 1024  # Apple fetches at most 128 KB


@dataclass(frozen=True)
class DomainSettings:
    root_url: str | None = None
    not_found_url: str | None = None
    # The files' bodies, serialized once.
    app_files: dict[str, str] = field(default_factory=dict)


def parse_domain_settings(text: str, domains: ShortDomains) -> dict[str, DomainSettings]:
    """The settings of each domain by host name ("*" for the others); ConfigurationError naming
    the field for anything else than the shape above. A fallback URL must not lead back to one of
    the stack's domains (a loop)."""
    if not text.strip():
        return {}
    try:
        document = json.loads(text)
    except ValueError:
        raise ConfigurationError("domain settings: not a JSON document") from None
    if not isinstance(document, dict):
        raise ConfigurationError("domain settings: must be a JSON object keyed by domain")
    from shortlink.web.urls import DestinationPolicy

    policy = DestinationPolicy.of(domains.names, ())
    parsed: dict[str, DomainSettings] = {}
    for name, entry in document.items():
        host = name if name == EVERY_DOMAIN else hostname(name)
        if domains.names and host != EVERY_DOMAIN and host not in domains.names:
            raise ConfigurationError(f"domain settings: {name}: not one of this stack's domains")
        if not isinstance(entry, dict):
            raise ConfigurationError(f"domain settings: {name}: must be an object")
        unknown = sorted(set(entry) - {*URL_FIELDS, *APP_FILES})
        if unknown:
            raise ConfigurationError(f"domain settings: {name}.{unknown[0]}: unknown field")
        urls: dict[str, str] = {}
        for url_field in URL_FIELDS:
            if url_field in entry:
                urls[url_field] = _checked_url(entry[url_field], f"{name}.{url_field}", policy)
        files: dict[str, str] = {}
        for file_field, kind in APP_FILES.items():
            if file_field not in entry:
                continue
            if not isinstance(entry[file_field], kind):
                expected = JSON_TYPE_NAMES[kind]
                raise ConfigurationError(f"domain settings: {name}.{file_field}: must be a JSON {expected}")
            body = json.dumps(entry[file_field], separators=(",", ":"))
            if len(body.encode()) > MAX_APP_FILE_BYTES:
                raise ConfigurationError(f"domain settings: {name}.{file_field}: larger than 128 KB")
            files[file_field] = body
        parsed[host] = DomainSettings(urls.get("root_url"), urls.get("not_found_url"), files)
    return parsed


def _checked_url(value: Any, where: str, policy: Any) -> str:
    if not isinstance(value, str):
        raise ConfigurationError(f"domain settings: {where}: must be a string")
    try:
        return validate_destination(value, policy)
    except InvalidUrl as error:
        raise ConfigurationError(f"domain settings: {where}: {error}") from None


def settings_of(by_domain: dict[str, DomainSettings], host: str) -> DomainSettings:
    """The settings of the domain on `host` (its own, else those for every domain)."""
    return by_domain.get(hostname(host)) or by_domain.get(EVERY_DOMAIN) or DomainSettings()
