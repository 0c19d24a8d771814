"""robots.txt: all disallowed but crawlable links, rebuilt at most once per TTL (issue 16 item 4)."""

from shortlink.redirect.robots import MAX_CRAWLABLE, TTL_SECONDS, CachedRobots, robots_txt


class CountingCodes:
    def __init__(self, codes: list[str]) -> None:
        self.codes_given = codes
        self.reads: list[int] = []

    def codes(self, limit: int) -> list[str]:
        self.reads.append(limit)
        return self.codes_given[:limit]


def test_only_crawlable_codes_are_allowed_and_everything_else_is_disallowed():
    assert robots_txt(["docs", "Abc1234"]) == "User-agent: *\nAllow: /Abc1234$\nAllow: /docs$\nDisallow: /\n"
    assert robots_txt([]) == "User-agent: *\nDisallow: /\n"


def test_the_text_is_read_once_per_ttl_and_the_read_is_bounded():
    source = CountingCodes(["a", "b"])
    now = [100.0]
    robots = CachedRobots(source, lambda: now[0])
    first = robots.text()
    now[0] += TTL_SECONDS - 1
    assert robots.text() == first
    assert source.reads == [MAX_CRAWLABLE]
    source.codes_given = ["a"]
    now[0] += 1
    assert robots.text() == "User-agent: *\nAllow: /a$\nDisallow: /\n"
    assert source.reads == [MAX_CRAWLABLE, MAX_CRAWLABLE]
