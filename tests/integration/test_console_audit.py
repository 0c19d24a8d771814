"""The console's audit log against moto: its sign-ins and sign-outs (a revoked key's attempt
too), link and key changes are recorded as the API's are; an admin session reads the workspace's
log (by kind of target, paged, as CSV or JSON) and a link's history on its page; others do not."""

import csv
import io
import json
import re

from shortlink.access.api_keys import hash_api_key, key_id_for
from shortlink.adapters.dynamodb.api_key_store import DynamoApiKeyStore
from shortlink.wiring import resources
from tests.integration.test_console import Browser, browser, create, scoped_key, signed_in

__all__ = ["browser"]  # a fixture, used by name


def rows(page: str) -> list[tuple[str, str]]:
    """The (action, target id) of each entry a page's table shows, in order."""
    found = re.findall(r'<tr data-action="([a-z._]+)".*?<td class="target">\w+ <code>([^<]*)</code>', page, re.S)
    return [(action, target) for action, target in found]


def test_the_consoles_changes_are_recorded_and_an_admin_reads_them_by_kind_and_per_link(aws, browser):
    admin = aws.new_api_key("owner")
    admin_id = key_id_for(hash_api_key(admin))
    signed_in(browser, admin)
    # Given a link created, edited and deleted, and a key made and revoked, through the console
    assert create(browser, url="https://example.com/console-audit", slug="console-audit")["statusCode"] == 303
    edit = {"csrf": browser.csrf(), "url": "https://example.com/edited", "title": "Edited"}
    assert browser.post("/console/links/console-audit", edit)["statusCode"] == 303
    made = browser.post("/console/keys", {"csrf": browser.csrf("/console/keys"), "name": "ci", "scopes": "links:read"})
    made_id = re.search(r'<tr data-key-id="([0-9a-f]{12})">\s*<td>ci', made["body"])
    assert made_id is not None
    revoked = browser.post(
        f"/console/keys/{made_id.group(1)}/revoke", {"csrf": browser.csrf("/console/keys"), "confirmed": "yes"}
    )
    assert revoked["statusCode"] == 303
    # When the admin opens the audit page
    page = browser.get("/console/audit")
    assert page["statusCode"] == 200
    # Then every change is there, newest first, by the session's key
    assert rows(page["body"]) == [
        ("key.revoked", made_id.group(1)),
        ("key.created", made_id.group(1)),
        ("link.edited", "console-audit"),
        ("link.created", "console-audit"),
        ("session.signed_in", admin_id),
    ]
    assert f"owner <small>(key <code>{admin_id}</code>)</small>" in page["body"]
    # by kind of target
    assert rows(browser.get("/console/audit", target="link")["body"]) == [
        ("link.edited", "console-audit"),
        ("link.created", "console-audit"),
    ]
    # and the link's page shows its own history, its edit naming the fields it changed
    link_page = browser.get("/console/links/console-audit")["body"]
    history = link_page[link_page.index('id="history-heading"') :]
    assert rows(history) == [("link.edited", "console-audit"), ("link.created", "console-audit")]
    assert "title, url" in history


def test_the_log_downloads_as_csv_and_json_with_the_pages_filter(aws, browser):
    admin = aws.new_api_key("=SUM(A1)")  # a key name a spreadsheet would compute
    signed_in(browser, admin)
    create(browser, url="https://example.com/download", slug="download-1")
    answer = browser.get("/console/audit.csv", target="link")
    assert answer["statusCode"] == 200
    assert answer["headers"]["Content-Disposition"] == 'attachment; filename="audit.csv"'
    [row] = list(csv.DictReader(io.StringIO(answer["body"])))
    assert (row["action"], row["target_id"], row["actor_label"]) == ("link.created", "download-1", "'=SUM(A1)")
    document = json.loads(browser.get("/console/audit.json")["body"])
    assert [entry["action"] for entry in document["entries"]] == ["link.created", "session.signed_in"]
    assert browser.get("/console/audit.xml")["statusCode"] == 404
    assert browser.get("/console/audit", target="everything")["statusCode"] == 400


def test_a_key_without_admin_sees_no_log_and_no_history(aws, browser):
    owner = aws.new_api_key("owner")
    editor = scoped_key("links:read", "links:write", owner=key_id_for(hash_api_key(owner)))
    signed_in(browser, editor)
    assert create(browser, url="https://example.com/editor", slug="editor-1")["statusCode"] == 303
    assert browser.get("/console/audit")["statusCode"] == 403
    assert browser.get("/console/audit.csv")["statusCode"] == 403
    page = browser.get("/console/links/editor-1")["body"]
    assert 'id="history-heading"' not in page
    assert 'href="/console/audit"' not in page
    # The editor's change is in the workspace's log all the same
    owner_browser = signed_in(Browser(browser.handlers), owner)
    assert ("link.created", "editor-1") in rows(owner_browser.get("/console/audit")["body"])


def test_sign_out_and_a_revoked_keys_attempt_are_recorded_an_unknown_keys_is_not(aws, browser):
    admin = aws.new_api_key("owner")
    admin_id = key_id_for(hash_api_key(admin))
    signed_in(browser, admin)
    assert browser.post("/console/sign-out", {"csrf": browser.csrf()})["statusCode"] == 303
    revoked = scoped_key("links:read", owner=admin_id)
    revoked_id = key_id_for(hash_api_key(revoked))
    assert DynamoApiKeyStore(resources().api_keys_table.value).revoke(revoked_id, owner=admin_id)
    assert browser.sign_in(revoked)["statusCode"] == 401
    assert browser.sign_in("sl_" + "x" * 32)["statusCode"] == 401
    signed_in(browser, admin)
    assert rows(browser.get("/console/audit", target="session")["body"]) == [
        ("session.signed_in", admin_id),
        ("session.sign_in_failed", revoked_id),
        ("session.signed_out", admin_id),
        ("session.signed_in", admin_id),
    ]
