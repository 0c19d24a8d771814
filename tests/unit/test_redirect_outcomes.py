"""The redirect's table of refusals: one page renderer, and metrics the dashboard knows."""

import subprocess
from pathlib import Path

import pytest

from shortlink.redirect import outcomes
from shortlink.redirect.outcomes import UNAVAILABLE, Outcome

OUTCOMES = {name: value for name, value in vars(outcomes).items() if isinstance(value, Outcome)}
ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", sorted(OUTCOMES))
def test_every_refusal_is_a_small_uncached_html_page_of_its_status(name):
    outcome = OUTCOMES[name]
    answer = outcome.page({"Allow": "GET, HEAD"})
    assert answer["statusCode"] == outcome.status
    assert answer["headers"]["Content-Type"] == "text/html; charset=utf-8"
    assert (answer["headers"]["Cache-Control"], answer["headers"]["Allow"]) == ("no-store", "GET, HEAD")
    assert answer["body"].startswith("<!doctype html>")
    assert f"<title>{outcome.heading}</title><h1>{outcome.heading}</h1><p>{outcome.text}</p>" in answer["body"]
    assert ("Retry-After" in answer["headers"]) == (outcome is UNAVAILABLE)


def test_each_metric_a_refusal_counts_is_on_the_dashboard():
    # Wherever the dashboard's definition lives (template.yaml or a template of its own)
    listed = subprocess.run(
        ["git", "ls-files", "*.yaml", "*.json"], cwd=ROOT, capture_output=True, text=True, check=True
    )
    dashboard = "".join((ROOT / name).read_text() for name in listed.stdout.split())
    metrics = {outcome.metric for outcome in OUTCOMES.values() if outcome.metric is not None}
    assert metrics == {
        "NotFound",
        "Expired",
        "Deleted",
        "RuleDenials",
        "ClicksExhausted",
        "LookupFailures",
        "PrefetchDeclined",
    }
    assert [metric for metric in sorted(metrics) if f'"{metric}"' not in dashboard] == []
