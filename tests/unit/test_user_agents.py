"""Device type, browser and OS from the User-Agent and Sec-CH-UA* client hints."""

import pytest

from shortlink.rules.user_agents import Client, classify, is_bot, is_link_preview

IPHONE = (
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
    "Version/17.5 Mobile/15E148 Safari/604.1"
)
IPAD = (
    "Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/604.1"
)
ANDROID_PHONE = (
    "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0.0.0 Mobile Safari/537.36"
)
ANDROID_TABLET = (
    "Mozilla/5.0 (Linux; Android 13; SM-X700) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0 Safari/537.36"
)
SAMSUNG = (
    "Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/25.0 "
    "Chrome/121.0.0.0 Mobile Safari/537.36"
)
WINDOWS_CHROME = (
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0 Safari/537.36"
)
WINDOWS_EDGE = WINDOWS_CHROME + " Edg/125.0.2535.51"
MAC_SAFARI = (
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15"
)
LINUX_FIREFOX = "Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:126.0) Gecko/20100101 Firefox/126.0"
CHROMEOS = "Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0 Safari/537.36"
OPERA = WINDOWS_CHROME + " OPR/110.0.0.0"
GOOGLEBOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"


@pytest.mark.parametrize(
    ("user_agent", "expected"),
    [
        (IPHONE, Client("mobile", "safari", "ios")),
        (IPAD, Client("tablet", "safari", "ios")),
        (ANDROID_PHONE, Client("mobile", "chrome", "android")),
        (ANDROID_TABLET, Client("tablet", "chrome", "android")),
        (SAMSUNG, Client("mobile", "samsung", "android")),
        (WINDOWS_CHROME, Client("desktop", "chrome", "windows")),
        (WINDOWS_EDGE, Client("desktop", "edge", "windows")),
        (MAC_SAFARI, Client("desktop", "safari", "macos")),
        (LINUX_FIREFOX, Client("desktop", "firefox", "linux")),
        (CHROMEOS, Client("desktop", "chrome", "chromeos")),
        (OPERA, Client("desktop", "opera", "windows")),
        (GOOGLEBOT, Client("bot", "other", "other")),
        ("curl/8.5.0", Client("bot", "other", "other")),
        ("", Client("bot", "other", "other")),
    ],
)
def test_user_agents_are_classified(user_agent, expected):
    assert classify(user_agent, {}) == expected


def test_client_hints_win_over_a_frozen_user_agent():
    # Chromium's reduced User-Agent says "Windows NT 10.0" and "Chrome" whatever the truth.
    hints = {
        "sec-ch-ua": '"Microsoft Edge";v="125", "Chromium";v="125", "Not.A/Brand";v="24"',
        "sec-ch-ua-mobile": "?1",
        "sec-ch-ua-platform": '"Android"',
    }
    assert classify(WINDOWS_CHROME, hints) == Client("mobile", "edge", "android")
    assert classify(WINDOWS_CHROME, {"sec-ch-ua-platform": '"Chrome OS"'}).os == "chromeos"
    assert classify(WINDOWS_CHROME, {"sec-ch-ua": '"Google Chrome";v="125", "Chromium";v="125"'}).browser == "chrome"


def test_bots_and_link_previewers_are_flagged():
    for agent in (GOOGLEBOT, "Slackbot-LinkExpanding 1.0", "facebookexternalhit/1.1", "python-requests/2.32"):
        assert is_bot(agent), agent
    assert not is_bot(IPHONE)


@pytest.mark.parametrize(
    "user_agent",
    [
        "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
        "Twitterbot/1.0",
        "LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)",
        "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
        "Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)",
        "TelegramBot (like TwitterBot)",
        "WhatsApp/2.23.20.0 A",
        "http.rb/5.1.1 (Mastodon/4.2.0; +https://mastodon.social/)",
        "Mozilla/5.0 (compatible; Bluesky Cardyb/1.1; +mailto:support@bsky.app)",
    ],
)
def test_link_preview_bots_are_known_and_counted_as_bots(user_agent):
    assert is_link_preview(user_agent)
    assert classify(user_agent, {}).device == "bot"


@pytest.mark.parametrize(
    "user_agent",
    [IPHONE, WINDOWS_EDGE, MAC_SAFARI, "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"],
)
def test_people_and_search_engines_are_not_link_preview_bots(user_agent):
    assert not is_link_preview(user_agent)


@pytest.mark.parametrize(
    "user_agent",
    [
        "Mozilla/5.0 (Linux; Android 4.2.2; CUBOT C9W Build/JDQ39) AppleWebKit/537.36 (KHTML, like Gecko) "
        "Chrome/32.0.1700.99 Mobile Safari/537.36",
        "Mozilla/5.0 (Vodafone/1.0/LG-KC910i/V10a Browser/Teleca-Q7.1 MMS/LG-MMS-V1.0/1.2 Java/ASVM/1.1 "
        "Profile/MIDP-2.1 Configuration/CLDC-1.1)",
        "Lynx/2.8.9rel.1 libwww-FM/2.14 SSL-MM/1.4.1 OpenSSL/1.1.1d",
    ],
)
def test_phones_and_text_browsers_the_quick_patterns_once_took_for_bots_are_people(user_agent):
    assert not is_bot(user_agent)
    assert classify(user_agent, {}).device != "bot"


def test_java_http_clients_and_libwww_perl_stay_bots():
    assert is_bot("Java/17.0.2")
    assert is_bot("libwww-perl/6.67")
