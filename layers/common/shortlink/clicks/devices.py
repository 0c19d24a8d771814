"""A click's device type, browser and OS as the stats count them, read by ua-parser (uap-core's
regexes, matched by its compiled accelerator ua-parser-rs) after the response, never before it:
the import and the first parse cost a fresh environment about 0.2 s (`make bench`'s `bots` part).

The values are the closed vocabulary of the link rules (shortlink.rules.user_agents), so the stats
and the rules name clients alike; the rules keep their own quick patterns because they decide
before the 30x. Client hints win over the User-Agent, as in the rules: Chromium freezes much of it.
"""

from collections.abc import Mapping
from functools import cache, lru_cache
from typing import Any

from shortlink.rules.user_agents import Client, hinted_browser, hinted_mobile, hinted_os

# ua-parser's browser families by their first word (`Chrome Mobile iOS`, `Firefox Mobile`, ...).
BROWSER_FAMILIES = {
    "chrome": "chrome",
    "chromium": "chrome",
    "edge": "edge",
    "firefox": "firefox",
    "safari": "safari",
    "mobile safari": "safari",
    "opera": "opera",
    "samsung internet": "samsung",
}
OS_FAMILIES = {
    "ios": "ios",
    "android": "android",
    "windows": "windows",
    "mac os x": "macos",
    "macos": "macos",
    "chrome os": "chromeos",
}
# uap-core's families of Linux distributions and desktops read as `linux`.
LINUX_FAMILIES = frozenset({"linux", "ubuntu", "debian", "fedora", "red hat", "suse", "gentoo", "mint", "arch linux"})
MOBILE_OS = frozenset({"ios", "android"})
# Device families and brands uap-core gives tablets (it reads an Android without `Mobile` as one).
TABLET_MARKS = ("ipad", "tablet", "kindle", "playbook")
# User-Agents remembered with their reading: as many as the bot classifier remembers.
REMEMBERED_AGENTS = 16384


def client_of(user_agent: str, headers: Mapping[str, str]) -> Client:
    """The device type (a person's: mobile, tablet or desktop), browser and OS of a client;
    `headers` are the request's lower-cased headers, whose client hints win."""
    device, browser, os = _read(user_agent)
    mobile = hinted_mobile(headers)
    if mobile is not None and device != "tablet":
        device = "mobile" if mobile else "desktop"
    return Client(device=device, browser=hinted_browser(headers) or browser, os=hinted_os(headers) or os)


@lru_cache(maxsize=REMEMBERED_AGENTS)
def _read(user_agent: str) -> tuple[str, str, str]:
    parsed = _parser().parse(user_agent)
    os = _os(parsed.os.family if parsed.os else "")
    return _device(parsed.device, os, user_agent), _browser(parsed.user_agent.family if parsed.user_agent else ""), os


def _browser(family: str) -> str:
    family = family.lower()
    for prefix, browser in BROWSER_FAMILIES.items():
        if family == prefix or family.startswith(f"{prefix} "):
            return browser
    return "other"


def _os(family: str) -> str:
    family = family.lower()
    if family in OS_FAMILIES:
        return OS_FAMILIES[family]
    return "linux" if family in LINUX_FAMILIES else "other"


def _device(device: Any, os: str, user_agent: str) -> str:
    marks = f"{device.family} {device.brand or ''}".lower() if device else ""
    if any(mark in marks for mark in TABLET_MARKS):
        return "tablet"
    if os == "android" and "mobile" not in user_agent.lower():
        return "tablet"
    if os in MOBILE_OS or "mobi" in user_agent.lower() or "phone" in marks:
        return "mobile"
    return "desktop"


@cache
def _parser() -> Any:
    """uap-core's builtin regexes (loaded lazily, as matched) on the best resolver installed."""
    import ua_parser

    return ua_parser.Parser(ua_parser.BestAvailableResolver(ua_parser.load_lazy_builtins()))
