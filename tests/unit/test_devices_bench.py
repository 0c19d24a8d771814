"""`make bench`'s reading of devices (tools/developers/bench/devices.py): its table in
docs/analytics.md is written from the run's JSON, never by hand."""

from tools.developers.bench.devices import ANALYTICS_PAGE, TABLE_END, TABLE_START, devices_table, write_devices_table

RUN = {
    "packages": {"ua-parser": "1.0.2", "ua-parser-rs": "0.1.5", "ua-parser-builtins": "202610"},
    "corpora": {"browsers": 1021, "Matomo browsers": 34393},
    "agreement_percent": {
        "browsers": {"device": 98.04, "browser": 54.75, "os": 97.36},
        "Matomo browsers": {"device": 99.55, "browser": 80.07, "os": 97.86},
    },
    "us_unseen_p50": 28.7,
    "us_unseen_p99": 209.8,
    "first_click_ms": 195.3,
}


def test_the_table_shows_each_corpus_agreement_and_the_costs():
    table = devices_table(RUN).splitlines()
    assert table[2] == "| browsers (1,021) | 98.04 % | 54.75 % | 97.36 % |"
    assert table[3] == "| Matomo browsers (34,393) | 99.55 % | 80.07 % | 97.86 % |"
    assert "28.7 µs p50, 209.8 µs p99" in table[-1]
    assert "195.3 ms (ua-parser 1.0.2, ua-parser-rs 0.1.5" in table[-1]


def test_the_analytics_page_holds_a_table_a_run_wrote_and_a_run_replaces_it_alone(tmp_path):
    shown = ANALYTICS_PAGE.read_text().partition(TABLE_START)[2].partition(TABLE_END)[0].strip().splitlines()
    assert shown[:2] == devices_table(RUN).splitlines()[:2]
    page = tmp_path / "analytics.md"
    page.write_text(f"before\n{TABLE_START}\nold\n{TABLE_END}\nafter\n")
    write_devices_table(RUN, page)
    assert page.read_text() == f"before\n{TABLE_START}\n{devices_table(RUN)}\n{TABLE_END}\nafter\n"
