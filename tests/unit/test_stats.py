"""Stats over a range: validation naming the parameter, series, totals and top values."""

from datetime import UTC, datetime, timedelta

import pytest

from shortlink.clicks.day_counts import DayCounts
from shortlink.clicks.stats import dimension_csv, link_report, series_csv, spreadsheet_cell, stats_range
from shortlink.clicks.unique_visitors import registers_of, sketch_element
from shortlink.errors import InvalidLinkOption

NOW = datetime(2026, 11, 30, 14, 25, tzinfo=UTC)


@pytest.mark.parametrize(
    ("start", "end", "granularity", "field"),
    [
        (NOW, NOW - timedelta(hours=1), "day", "from"),
        (NOW.replace(tzinfo=None), None, "day", "from"),
        (None, NOW.replace(tzinfo=None), "hour", "to"),
        (NOW - timedelta(days=32), NOW, "hour", "to"),
        (NOW - timedelta(days=401), NOW, "day", "to"),
        (None, datetime(9999, 12, 31, 23, 30, tzinfo=UTC), "day", "to"),
    ],
)
def test_invalid_ranges_name_the_parameter(start, end, granularity, field):
    with pytest.raises(InvalidLinkOption) as refused:
        stats_range(start, end, granularity, NOW)
    assert refused.value.field == field


def test_the_default_range_is_the_last_30_days_in_whole_hours():
    span = stats_range(None, None, "day", NOW)
    assert (span.start, span.end) == (datetime(2026, 10, 31, 14, tzinfo=UTC), datetime(2026, 11, 30, 15, tzinfo=UTC))
    assert (span.first_hour, span.last_hour) == ("2026-10-31T14", "2026-11-30T14")


def day(name, hours, **dimensions):
    """A day's counts: `hours` maps "HH" to (clicks, bots, visitors)."""
    counts = DayCounts(name)
    for hour, (clicks, bots, visitors) in hours.items():
        counts.add_counters({"clicks": clicks, f"clicks@{hour}": clicks, "bots": bots, f"bots@{hour}": bots})
        registers = registers_of(sketch_element(v * 32) for v in visitors)
        counts.add_hour_visitors(hour, registers)
        counts.add_day_visitors(registers)
    counts.add_counters(dimensions)
    return counts


def test_a_report_sums_series_totals_and_top_values():
    days = [
        day("2026-11-29", {"23": (2, 0, "ab")}, **{"cc#DE": 2, "dv#mobile": 2}),
        day("2026-11-30", {"09": (3, 1, "bc"), "10": (1, 0, "c")}, **{"cc#FR": 1, "cc#DE": 3}),
    ]
    span = stats_range(datetime(2026, 11, 29, 12, tzinfo=UTC), NOW, "day", NOW)
    report = link_report("abc", days, span)
    assert (report["clicks"], report["bots"]) == (6, 1)
    # Unique per day: a and b on the 29th, b and c on the 30th (the salt changes daily).
    assert report["unique_visitors"] == 4
    assert [(p["start"], p["clicks"], p["unique_visitors"]) for p in report["series"]] == [
        ("2026-11-29T00:00:00Z", 2, 2),
        ("2026-11-30T00:00:00Z", 4, 2),
    ]
    assert report["top"]["country"] == [{"value": "DE", "clicks": 5}, {"value": "FR", "clicks": 1}]
    assert report["top"]["referrer"] == []
    assert report["top"]["campaign"] == []  # days counted before campaigns were
    # The columns from before agent classes keep their places; people and each bot class follow.
    assert series_csv(report).splitlines() == [
        "start,clicks,bots,unique_visitors,repeat_clicks,people,"
        "crawler,previewer,scanner,monitor,library,ai_agent,unknown_bot",
        "2026-11-29T00:00:00Z,2,0,2,0,2,0,0,0,0,0,0,0",
        "2026-11-30T00:00:00Z,4,1,2,0,3,0,0,0,0,0,0,1",
    ]


def test_an_hourly_series_has_every_hour_of_the_range_and_counts_only_its_hours():
    span = stats_range(NOW - timedelta(hours=3), NOW, "hour", NOW)
    days = [day("2026-11-30", {"09": (7, 0, "a"), "12": (5, 1, "abc"), "14": (1, 0, "a")})]
    report = link_report("abc", days, span)
    assert [(p["start"][11:13], p["clicks"]) for p in report["series"]] == [("11", 0), ("12", 5), ("13", 0), ("14", 1)]
    assert [p["unique_visitors"] for p in report["series"]] == [0, 3, 0, 1]
    # 09:00 lies outside the range: neither its clicks nor its visitors count.
    assert (report["clicks"], report["bots"], report["unique_visitors"]) == (6, 1, 3)


def test_a_report_breaks_clicks_down_by_campaign_and_a_csv_lists_one_dimension():
    days = [
        day("2026-11-29", {"23": (3, 0, "ab")}, **{"cp#spring": 2, "cp#(none)": 1}),
        day("2026-11-30", {"09": (2, 0, "b")}, **{"cp#spring": 1, "cp#black friday": 1}),
    ]
    report = link_report("abc", days, stats_range(datetime(2026, 11, 29, tzinfo=UTC), NOW, "day", NOW))
    assert report["top"]["campaign"] == [
        {"value": "spring", "clicks": 3},
        {"value": "(none)", "clicks": 1},
        {"value": "black friday", "clicks": 1},
    ]
    assert dimension_csv(report, "campaign").splitlines() == [
        "campaign,clicks",
        "spring,3",
        "(none),1",
        "black friday,1",
    ]


def test_a_dimension_csv_quotes_what_visitors_typed():
    report = {"top": {"campaign": [{"value": 'a,"b"', "clicks": 2}, {"value": "=1+1", "clicks": 1}]}}
    # Quoted as RFC 4180 says; a value a spreadsheet would run as a formula is defused.
    assert dimension_csv(report, "campaign").splitlines() == ["campaign,clicks", '"a,""b""",2', "'=1+1,1"]


@pytest.mark.parametrize("start", ["=", "+", "-", "@", "\t", "\r"])
def test_a_csv_cell_that_would_start_a_formula_gets_a_leading_quote(start):
    assert spreadsheet_cell(f"{start}1+1") == f"'{start}1+1"
    assert spreadsheet_cell(f"a{start}") == f"a{start}"


def test_repeat_clicks_are_counted_within_the_clicks_of_the_range_hours():
    # Given a day whose 09:00 hour holds 2 repeats of its 3 clicks and whose 16:00 one holds 1
    counts = day("2026-11-30", {"09": (3, 0, "ab"), "16": (1, 0, "a")})
    counts.add_counters({"repeats": 3, "repeats@09": 2, "repeats@16": 1})
    # When the range covers 08:00-12:00 only
    span = stats_range(datetime(2026, 11, 30, 8, tzinfo=UTC), datetime(2026, 11, 30, 12, tzinfo=UTC), "hour", NOW)
    report = link_report("abc", [counts], span)
    # Then the repeats of those hours are shown, in the totals, the series and the CSV
    assert (report["clicks"], report["repeat_clicks"]) == (3, 2)
    assert [p["repeat_clicks"] for p in report["series"]] == [0, 2, 0, 0]
    assert series_csv(report).splitlines()[2] == "2026-11-30T09:00:00Z,3,0,2,2,3,,,,,,,"


def test_clicks_are_reported_per_agent_class_of_whole_days_and_bots_counted_before_classes_as_unknown_bots():
    # Given a day with an hour counted before classes (3 bots without one), an hour with classes,
    # and a class counted per hour by the release before (folded into its day)
    counts = day("2026-11-30", {"09": (5, 3, "ab"), "12": (10, 4, "abc")})
    counts.add_counters({"bots#crawler": 2, "bots#previewer": 1, "bots@12#ai_agent": 1})
    # When the hourly series covers both hours
    span = stats_range(datetime(2026, 11, 30, 9, tzinfo=UTC), datetime(2026, 11, 30, 13, tzinfo=UTC), "hour", NOW)
    report = link_report("abc", [counts], span)
    # Then each point says its people's clicks, but no classes (they are counted per day), and the
    # totals say each class's over the whole day, adding up to its clicks
    nine, twelve = report["series"][0], report["series"][3]
    assert (nine["people"], twelve["people"], "agents" in nine, "agents" in twelve) == (2, 6, False, False)
    assert report["people"] == report["agents"]["person"] == 8
    assert report["agents"] == {
        "person": 8,
        "crawler": 2,
        "previewer": 1,
        "scanner": 0,
        "monitor": 0,
        "library": 0,
        "ai_agent": 1,
        "unknown_bot": 3,
    }
    assert sum(report["agents"].values()) == report["clicks"] == 15
    assert report["bots"] == report["clicks"] - report["people"]
    assert series_csv(report).splitlines()[4] == "2026-11-30T12:00:00Z,10,4,3,0,6,,,,,,,"
    # And a daily series' point carries its day's classes, in the JSON and the CSV
    daily = link_report("abc", [counts], stats_range(None, datetime(2026, 12, 1, tzinfo=UTC), "day", NOW))
    assert daily["series"][-1]["agents"] == report["agents"]
    assert series_csv(daily).splitlines()[-1] == "2026-11-30T00:00:00Z,15,7,3,0,8,2,1,0,0,0,1,3"
