"""`python -m tools.developers.bench bots`: its targets, and the table of docs/analytics.md written from its
JSON (a run's copy: tests/data/bots_report.json), never by hand."""

import copy
import json
from pathlib import Path

from tools.developers.bench.bots import (
    ANALYTICS_PAGE,
    DETECTORS,
    TABLE_END,
    TABLE_START,
    bots_table,
    bots_targets,
    write_analytics_table,
)

RUN = json.loads((Path(__file__).parents[1] / "data" / "bots_report.json").read_text())


def test_the_table_shows_each_classifier_side_by_side_with_the_runs_figures():
    table = bots_table(RUN).splitlines()
    ours = RUN["detectors"][DETECTORS[0]]
    rows = table[2 : 2 + len(DETECTORS)]
    assert [row.split(" | ")[0].removeprefix("| ") for row in rows] == list(DETECTORS)
    assert table[2].startswith(f"| {DETECTORS[0]} | {ours['flagged_percent']['crawler-user-agents examples']} % |")
    assert f"| {ours['flagged_percent']['Matomo bots']} % |" in table[2]
    assert f"| {ours['first_click_ms']:,} |" in table[2]
    # And below it, where the corpora and the lists alone come from, with their versions
    assert table[-1].startswith("The corpora and the lists alone come from these packages: crawler-user-agents ")
    assert f"device-detector {RUN['corpora_versions']['device-detector']}" in table[-1]


def test_the_targets_are_the_runs_and_fail_when_a_corpus_falls_short():
    assert bots_targets(RUN) == RUN["targets"]
    assert RUN["targets"]["bots_re2_build_answers_as_the_lists"]
    worse = copy.deepcopy(RUN)
    worse["detectors"][DETECTORS[0]]["flagged_percent"]["Matomo bots"] = 90.0
    worse["re2_build_disagreements"] = 1
    missed = bots_targets(worse)
    assert not missed["bots_each_crawler_corpus_ge_97_percent"]
    assert not missed["bots_re2_build_answers_as_the_lists"]


def test_the_analytics_page_holds_a_table_written_by_the_bench(tmp_path):
    page = ANALYTICS_PAGE.read_text()
    shown = page.partition(TABLE_START)[2].partition(TABLE_END)[0].strip().splitlines()
    assert shown[:2] == bots_table(RUN).splitlines()[:2]  # the run's columns
    assert [row.split(" | ")[0] for row in shown[2 : 2 + len(DETECTORS)]] == [f"| {name}" for name in DETECTORS]
    # And a run replaces the table alone
    copy_of_page = tmp_path / "analytics.md"
    copy_of_page.write_text(f"before\n{TABLE_START}\nold\n{TABLE_END}\nafter\n")
    write_analytics_table(RUN, copy_of_page)
    assert copy_of_page.read_text() == f"before\n{TABLE_START}\n{bots_table(RUN)}\n{TABLE_END}\nafter\n"
