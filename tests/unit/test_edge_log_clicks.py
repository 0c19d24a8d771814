"""Clicks from CloudFront real-time log lines: only the follows the function answered, read as
the redirect reads its own (country, bots, referrer, language, campaign, repeats), each packed
under its edge request id."""

from datetime import UTC, datetime, timedelta
from urllib.parse import quote

from shortlink.domains.model import ShortDomains
from shortlink.links.destinations import Utm
from shortlink.links.model import Link
from shortlink.redirect.click_events import ClickReading
from shortlink.redirect.edge_log_clicks import (
    LOG_FIELDS,
    edge_follow,
    edge_packs,
    lines_by_minute,
    log_fields,
    request_headers,
)
from tests.redirect_fakes import plain_click_reading

AT = datetime(2026, 12, 6, 12, tzinfo=UTC).timestamp()
BROWSER = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36"
ONE_DOMAIN = ShortDomains()
LINK = Link("promo", "https://example.com/sale", "key-1", datetime(2026, 1, 1, tzinfo=UTC), tags=("spring",))


def line(**values: str) -> str:
    fields = {
        "timestamp": f"{AT:.3f}",
        "c-ip": "203.0.113.9",
        "c-country": "DE",
        "cs-method": "GET",
        "cs-host": "sho.rt",
        "cs-uri-stem": "/promo",
        "cs-uri-query": "-",
        "cs-user-agent": quote(BROWSER),
        "cs-referer": quote("https://www.news.example/today"),
        "cs-headers": quote("Accept-Language:de-DE,de;q=0.9\nSec-Fetch-Mode:navigate\n"),
        "x-edge-request-id": "a" * 56,
        "x-edge-result-type": "FunctionGeneratedResponse",
        "sc-status": "302",
    }
    fields.update({name.replace("_", "-"): value for name, value in values.items()})
    return "\t".join(fields[name] for name in LOG_FIELDS)


def reading() -> ClickReading:
    return plain_click_reading()


def packs(*lines: str, link: Link | None = LINK, domains: ShortDomains = ONE_DOMAIN):
    numbered = [(str(index), text) for index, text in enumerate(lines)]
    return edge_packs(numbered, domains, lambda key: link, b"salt-root", reading())


def test_an_answered_follow_is_one_click_read_as_the_redirect_reads_it():
    [(record, pack)] = packs(line(cs_uri_query="utm_campaign=launch&x=1"))
    [click] = pack.clicks
    assert (record, pack.pack_id, click.click_id, click.code) == ("0", "a" * 56, "a" * 56, "promo")
    assert (click.country, click.browser, click.referrer, click.language) == ("DE", "chrome", "news.example", "de")
    assert (click.campaign, click.bot, click.owner, click.tags) == ("launch", False, "key-1", ("spring",))
    assert click.at.timestamp() == AT
    assert len(click.visitor) == 32


def test_only_gets_the_function_answered_with_a_redirect_are_clicks():
    passed_on = line(x_edge_result_type="Miss")
    checked = line(cs_method="HEAD", x_edge_request_id="b" * 56)
    refused = line(sc_status="404", x_edge_request_id="c" * 56)
    other_shape = "1\t2\t3"
    assert packs(passed_on, checked, refused, other_shape) == []


def test_a_bot_and_a_repeat_are_flagged_and_lines_are_taken_in_time_order():
    googlebot = quote("Googlebot/2.1 (+http://www.google.com/bot.html)")
    bot = line(timestamp=f"{AT - 1:.3f}", cs_user_agent=googlebot, x_edge_request_id="b" * 56)
    later = line(timestamp=f"{AT + 3:.3f}", x_edge_request_id="d" * 56)
    first = line()
    found = packs(later, bot, first)
    assert [pack.pack_id for _, pack in found] == ["b" * 56, "a" * 56, "d" * 56]
    clicks = [pack.clicks[0] for _, pack in found]
    assert [click.bot for click in clicks] == [True, False, False]
    assert [click.repeat for click in clicks] == [False, False, True]


def test_a_second_domain_is_the_prefix_of_the_key_and_a_gone_link_still_counts():
    domains = ShortDomains(("sho.rt", "go.example"))
    [(_, pack)] = packs(line(cs_host="go.example"), link=None, domains=domains)
    assert pack.clicks[0].code == "go.example/promo"
    assert pack.clicks[0].owner == ""


def test_malformed_fields_are_refused_not_guessed():
    assert log_fields("a\tb") is None
    fields = log_fields(line(timestamp="\uff11\uff12\uff13"))  # full-width digits are not a time
    assert fields is not None
    assert edge_follow(fields, ShortDomains()) is None
    long_id = log_fields(line(x_edge_request_id="x" * 65))
    assert long_id is not None
    assert edge_follow(long_id, ShortDomains()) is None


def test_logged_headers_are_decoded_by_lower_case_name_first_one_kept():
    logged = quote("Accept-Language:fr\nX-Test:1\nx-test:2\nbroken line\n")
    assert request_headers(logged) == {"accept-language": "fr", "x-test": "1"}


def test_the_campaign_is_the_links_own_when_the_visitor_gives_none():
    link = Link("promo", "https://example.com/", "key-1", LINK.created_at, utm=Utm(campaign="winter"))
    [(_, pack)] = packs(line(), link=link)
    assert pack.clicks[0].campaign == "winter"


def test_lines_are_counted_by_their_requests_minute_and_only_once_read_for_good():
    # Given lines of three records over two minutes, one malformed, and the third record failed
    minute = datetime.fromtimestamp(AT, UTC).replace(second=0, microsecond=0)
    later = line(timestamp=f"{minute.timestamp() + 61:.3f}")
    lines = [("r1", line()), ("r1", later), ("r2", "not a log line"), ("r3", line()), ("r4", line())]
    now = minute + timedelta(minutes=9)
    # When they are counted by minute
    counted = lines_by_minute(lines, offered_again=["r4", "r3"], now=now)
    # Then the failed record and every later one wait to come back; the malformed line counts now
    assert counted == {minute: 1, minute + timedelta(minutes=1): 1, now.replace(second=0, microsecond=0): 1}
    assert sum(lines_by_minute(lines, offered_again=[], now=now).values()) == 5
