"""Import and export over real HTTP through the local stack, and the commands that call them."""

import csv
import io
import json
import subprocess
import sys
import time

import pytest

from shortlink.clicks.stats import spreadsheet_cell
from tests.e2e.conftest import FIXED_KEY
from tests.e2e.running_stack import ROOT, RunningStack

# The link's rules deny bots (a request without a User-Agent is one).
BROWSER = {"User-Agent": "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"}


def export(stack, auth, export_format="json"):
    answer = stack.request("GET", f"/links/export?format={export_format}", headers=auth)
    assert answer.status == 200, answer.body
    return answer.body.decode()


def import_body(stack, auth, body, content_type="application/json"):
    answer = stack.request("POST", "/links/import", body, {**auth, "Content-Type": content_type})
    assert answer.status == 200, answer.body
    return answer.json()


def command(*args, stack):
    return subprocess.run(
        [sys.executable, "-m", *args, "--url", stack.base_url, "--key", stack.api_key],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_a_key_reimporting_its_own_export_creates_nothing(stack, auth, tmp_path):
    # Given a link without a slug, clicked once, and the key's export
    created = stack.request("POST", "/links", {"url": f"https://example.com/export/{time.time_ns()}"}, auth)
    assert created.status == 201, created.body
    code = created.json()["code"]
    assert stack.request("GET", f"/{code}").status == 302
    deadline = time.monotonic() + 20
    while (rows := [row for row in csv.reader(io.StringIO(export(stack, auth, "stats-csv"))) if row[0] == code]) == []:
        assert time.monotonic() < deadline, "the click never reached the stats export"
        time.sleep(0.5)
    assert [row[2:4] for row in rows] == [["1", "1"]]  # one click, curl-like: a bot's
    exported = tmp_path / "links.json"
    # (with the passwords' hashes: without them a protected link of the stack fails to import)
    result = command(
        "tools.operators.export", "--format", "json", "--password-hashes", "-o", str(exported), stack=stack
    )
    assert result.returncode == 0, result.stderr
    links = json.loads(exported.read_text())["links"]
    assert code in {link["code"] for link in links}
    # (a slug another test of this stack made may start as a formula would: the CSV quotes it)
    assert {row["code"] for row in csv.DictReader(io.StringIO(export(stack, auth, "csv")))} == {
        spreadsheet_cell(link["code"]) for link in links
    }

    # When it is imported back, by the API and by the command: every link is there already
    report = import_body(stack, auth, exported.read_text())
    assert (report["created"], report["skipped"], report["failed"]) == (0, len(links), 0), report
    result = command("tools.operators.import_links", str(exported), stack=stack)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines()[-1] == f"created 0, skipped {len(links)}, failed 0"
    assert len(json.loads(export(stack, auth))["links"]) == len(links)


def every_option_links(stack, auth):
    """Links with each option POST /links takes, one of them deleted; their codes."""
    suffix = time.time_ns()
    bodies = [
        {"url": "https://example.com/rt/plain"},
        {
            "url": "https://example.com/rt/all",
            "slug": f"rt-all-{suffix}",
            "valid_from": "2026-01-01T00:00:00Z",
            "expires_at": "2099-01-01T00:00:00Z",
            "redirect_type": 307,
            "tags": ["rt", "all"],
            "title": 'Every option, "quoted"',
            "max_clicks": 50,
            "password": "round-trip",
            "rules": {
                "deny": {"devices": ["bot"]},
                "routes": [{"languages": ["de"], "url": "https://example.com/rt/de"}],
            },
        },
        {"url": "https://example.com/rt/private", "private": True},
        {"url": "https://example.com/rt/deleted", "slug": f"rt-deleted-{suffix}"},
    ]
    codes = []
    for body in bodies:
        answer = stack.request("POST", "/links", body, auth)
        assert answer.status == 201, answer.body
        codes.append(answer.json()["code"])
    assert stack.request("DELETE", f"/links/rt-deleted-{suffix}", headers=auth).status == 204
    return codes


def comparable(links, codes):
    return sorted(
        (
            {name: value for name, value in link.items() if name not in ("created_at", "short_url")}
            for link in links
            if link["code"] in codes
        ),
        key=lambda link: link["code"],
    )


@pytest.mark.dynamodb_features("TransactWriteItems")  # slugs and import claims are written with their links
def test_an_export_imports_back_into_an_empty_stack_unchanged(stack, auth):
    # Given links with every option in the shared stack, exported as JSON with the passwords' hashes
    codes = every_option_links(stack, auth)
    with_hashes = "json&include=password_hash"  # the stack's key holds admin
    before = [link for link in json.loads(export(stack, auth, with_hashes))["links"] if link["code"] in codes]
    assert len(before) == 4

    # When a fresh stack imports that export
    fresh = RunningStack.start(SHORTLINK_API_KEY=FIXED_KEY)
    try:
        assert fresh.ready, fresh.output()
        report = import_body(fresh, auth, json.dumps({"links": before}))
        assert (report["created"], report["failed"]) == (4, 0), report

        # Then its export is the same but for creation times and the stack's address
        after = json.loads(export(fresh, auth, with_hashes))["links"]
        assert comparable(after, codes) == comparable(before, codes)
        # And the links work there as they did: the password is the one set at create
        all_options = next(code for code in codes if code.startswith("rt-all-"))
        assert fresh.request("GET", f"/{all_options}", headers=BROWSER).status == 200  # the unlock form
        form = {**BROWSER, "Content-Type": "application/x-www-form-urlencoded"}
        unlocked = fresh.request("POST", f"/{all_options}", "password=round-trip", form)
        assert (unlocked.status, unlocked.headers["location"]) == (303, "https://example.com/rt/all")
        assert fresh.request("GET", f"/{codes[0]}").status == 302
        assert fresh.request("GET", f"/{codes[3]}").status == 410
    finally:
        assert fresh.stop() == 0, fresh.output()
