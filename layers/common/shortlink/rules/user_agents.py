"""What kind of client follows a link, as the link rules see it before answering: device type,
browser and OS, from the User-Agent and, when the browser sends them, its Sec-CH-UA* client hints
(which win: Chromium freezes much of its User-Agent string).

A closed vocabulary, because rules are validated against it when saved. These few patterns cost
microseconds on a visitor's redirect; the stats read the same vocabulary with ua-parser after the
response (shortlink.clicks.devices), which knows far more clients at a cost (its import and first
parse about 0.2 s, an unseen string tens of microseconds) the redirect cannot pay before answering.
The stats' bot flag is decided after the response too, by shortlink.clicks.bots.
"""

import re
from collections.abc import Mapping
from dataclasses import dataclass

DEVICES = frozenset({"mobile", "tablet", "desktop", "bot"})
BROWSERS = frozenset({"chrome", "edge", "firefox", "safari", "opera", "samsung", "other"})
OPERATING_SYSTEMS = frozenset({"android", "ios", "windows", "macos", "linux", "chromeos", "other"})

# Crawlers, link previewers, monitors and HTTP libraries: not a person following a link. Not
# Cubot phones, J2ME phones' "Java/ASVM" nor Lynx's libwww-FM, which are people.
BOT_PATTERN = re.compile(
    r"(?<!cu)bot\b|bot/|crawl|spider|slurp|preview|facebookexternalhit|embedly|headless|lighthouse|"
    r"curl/|wget/|python-|httpx|aiohttp|go-http-client|^java/|okhttp|axios/|node-fetch|libwww-perl|scrapy|"
    r"monitor|pingdom|uptime|whatsapp|telegram|discord|slack|mastodon|cardyb|iframely|vkshare",
    re.IGNORECASE,
)
# The bots that fetch a shared link to draw its card in a chat or a feed: they get a link's social
# preview page instead of the redirect. Search engines are not among them: they follow the redirect.
LINK_PREVIEW_PATTERN = re.compile(
    r"facebookexternalhit|facebot|twitterbot|linkedinbot|slackbot|slack-imgproxy|discordbot|telegrambot|"
    r"whatsapp|skypeuripreview|pinterest|redditbot|embedly|iframely|vkshare|mastodon|bluesky|cardyb|"
    r"microsoftpreview",
    re.IGNORECASE,
)
# Sec-CH-UA-Platform values as browsers send them (quoted).
HINTED_PLATFORMS = {
    "android": "android",
    "ios": "ios",
    "windows": "windows",
    "macos": "macos",
    "linux": "linux",
    "chrome os": "chromeos",
    "chromium os": "chromeos",
}
# Sec-CH-UA brands, most specific first ("Chromium" is listed by every Chromium browser).
HINTED_BRANDS = (
    ("microsoft edge", "edge"),
    ("opera", "opera"),
    ("samsung internet", "samsung"),
    ("google chrome", "chrome"),
    ("chromium", "chrome"),
)
# User-Agent tokens, most specific first: Edge and Opera also say Chrome, Chrome also says Safari.
UA_BROWSERS = (
    ("edg/", "edge"),
    ("edga/", "edge"),
    ("edgios/", "edge"),
    ("opr/", "opera"),
    ("opera", "opera"),
    ("samsungbrowser/", "samsung"),
    ("firefox/", "firefox"),
    ("fxios/", "firefox"),
    ("crios/", "chrome"),
    ("chrome/", "chrome"),
    ("chromium/", "chrome"),
    ("safari/", "safari"),
)
BRAND_PATTERN = re.compile(r'"([^"]*)"\s*;\s*v=')


@dataclass(frozen=True)
class Client:
    device: str
    browser: str
    os: str


def classify(user_agent: str, headers: Mapping[str, str]) -> Client:
    """The client behind a request; `headers` are lower-cased request headers (client hints)."""
    ua = user_agent.lower()
    return Client(device=_device(ua, headers), browser=_browser(ua, headers), os=_os(ua, headers))


def is_bot(user_agent: str) -> bool:
    return not user_agent.strip() or BOT_PATTERN.search(user_agent) is not None


def is_link_preview(user_agent: str) -> bool:
    """Whether a request comes from a bot that draws link cards (chats, social networks)."""
    return LINK_PREVIEW_PATTERN.search(user_agent) is not None


def _device(ua: str, headers: Mapping[str, str]) -> str:
    return "bot" if is_bot(ua) else _human_device(ua, headers)


def _human_device(ua: str, headers: Mapping[str, str]) -> str:
    """The device type of a person's client; `ua` is the lower-cased User-Agent."""
    if "ipad" in ua or "tablet" in ua or ("android" in ua and "mobile" not in ua):
        return "tablet"
    mobile = hinted_mobile(headers)
    if mobile is not None:
        return "mobile" if mobile else "desktop"
    if "mobi" in ua or "iphone" in ua or "ipod" in ua:
        return "mobile"
    return "desktop"


def hinted_browser(headers: Mapping[str, str]) -> str | None:
    """The browser its Sec-CH-UA brands name; None without a known one."""
    hinted = headers.get("sec-ch-ua")
    if hinted:
        brands = {brand.lower() for brand in BRAND_PATTERN.findall(hinted)}
        for brand, name in HINTED_BRANDS:
            if brand in brands:
                return name
    return None


def hinted_os(headers: Mapping[str, str]) -> str | None:
    """The OS its Sec-CH-UA-Platform names; None without a known one."""
    hinted = headers.get("sec-ch-ua-platform")
    return HINTED_PLATFORMS.get(hinted.strip().strip('"').lower()) if hinted else None


def hinted_mobile(headers: Mapping[str, str]) -> bool | None:
    """What its Sec-CH-UA-Mobile says (`?1`: a phone); None without it."""
    mobile_hint = headers.get("sec-ch-ua-mobile")
    return None if mobile_hint is None else mobile_hint.strip() == "?1"


def _browser(ua: str, headers: Mapping[str, str]) -> str:
    hinted = hinted_browser(headers)
    if hinted is not None:
        return hinted
    for token, name in UA_BROWSERS:
        if token in ua:
            return name
    return "other"


def _os(ua: str, headers: Mapping[str, str]) -> str:
    hinted = hinted_os(headers)
    if hinted is not None:
        return hinted
    if "iphone" in ua or "ipad" in ua or "ipod" in ua:
        return "ios"
    if "android" in ua:
        return "android"
    if "windows" in ua:
        return "windows"
    if "cros" in ua:
        return "chromeos"
    if "mac os x" in ua or "macintosh" in ua:
        return "macos"
    if "linux" in ua or "x11" in ua:
        return "linux"
    return "other"
