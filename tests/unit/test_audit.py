"""The audit log's pure parts: its vocabulary, entries, hashed addresses, query parsing, exports,
retention setting and webhook event."""

import csv
import io
import json
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from shortlink.access.api_keys import ApiKey
from shortlink.audit.export import CSV_COLUMNS, entries_csv, entries_json
from shortlink.audit.model import ACTIONS, TARGET_KINDS, PersonChange, RecordedActor, new_entry, target_kind_of
from shortlink.audit.queries import MAX_LIMIT, InvalidAuditQuery, audit_query, export_format
from shortlink.audit.recording import (
    AuditRecorder,
    audit_event,
    changed_fields,
    client_hash,
    edited_fields,
    link_target,
    recorded,
)
from shortlink.errors import ConfigurationError
from shortlink.links.model import Link, LinkChanges
from shortlink.people.actors import Actor
from shortlink.people.model import Membership
from shortlink.settings.audit import AuditSettings
from shortlink.webhooks.deliveries import parse_message
from shortlink.webhooks.events import DEFAULT_EVENT_TYPES, EVENT_TYPES, EventMessage
from tests.fakes import InMemoryAuditTrail, InMemoryEventQueue

AT = datetime(2026, 12, 3, 9, 30, 15, 123456, tzinfo=UTC)
KEY_ACTOR = RecordedActor("key", "0123456789ab", "deploy bot")


def entry(action="link.edited", target="abc1234", **fields):
    values = {"workspace": "ws1", "at": AT, "actor": KEY_ACTOR, "action": action, "target_id": target}
    values |= {"client": "c" * 32, "request_id": "req-1", **fields}
    return new_entry(**values)


def test_every_action_names_a_kind_of_target_and_each_kind_has_an_action():
    kinds = [target_kind_of(action) for action in ACTIONS]
    assert set(kinds) == set(TARGET_KINDS)
    assert len(set(ACTIONS)) == len(ACTIONS) == 43
    with pytest.raises(ValueError, match="names no kind"):
        target_kind_of("account.closed")  # type: ignore[arg-type]


def test_an_entry_is_kept_to_the_millisecond_in_utc_with_an_id_that_sorts_by_time():
    # Given an entry made at a moment with microseconds, in another zone
    made = entry(at=AT.astimezone(timezone_plus_two()))
    # Then its moment is UTC to the millisecond, and its id starts with that millisecond
    assert made.at == datetime(2026, 12, 3, 9, 30, 15, 123000, tzinfo=UTC)
    assert made.view()["at"] == "2026-12-03T09:30:15.123Z"
    assert made.id.startswith(f"{int(made.at.timestamp() * 1000):013d}-")
    later = entry(at=AT + timedelta(milliseconds=1))
    assert sorted([later.id, made.id]) == [made.id, later.id]
    assert entry().id != entry().id  # random bits: two entries of one millisecond do not collide


def timezone_plus_two():
    from datetime import timezone

    return timezone(timedelta(hours=2))


def test_an_edit_names_the_fields_it_changed_and_never_a_secret_or_its_value():
    changes = LinkChanges(url="https://example.com/new", password="hunter2-secret", tags=("a",))
    made = entry(changed=edited_fields(changes))
    assert made.changed == ("password", "tags", "url")
    # A stored hash is named as the password, never by its own name
    assert entry(changed=("password_hash", "title")).changed == ("password", "title")
    text = json.dumps(made.view())
    assert "hunter2" not in text
    assert "example.com/new" not in text


def test_a_forms_edit_names_only_the_fields_whose_values_changed():
    before = Link(code="abc1234", url="https://example.com/", owner="ws1", created_at=AT, title="Old")
    after = replace(before, title="New", password_hash="pbkdf2$...")
    assert entry(changed=changed_fields(before, after)).changed == ("password", "title")
    assert changed_fields(before, before) == ()


def test_a_key_acts_under_its_public_id_and_name_never_its_hash_and_a_person_under_their_subject():
    key = ApiKey(key_id="0123456789ab", name="ci", created_at=AT, owner="ws1")
    assert recorded(Actor.of_key(key)) == RecordedActor("key", "0123456789ab", "ci")
    member = Membership("ws1", "sub-123", "ana@example.com", "editor", AT)
    assert recorded(Actor.of_member(member)) == RecordedActor("person", "sub-123", "ana@example.com")


def test_a_clients_address_is_hashed_with_the_days_salt():
    root = b"r" * 32
    same_day = client_hash(root, "203.0.113.7", AT), client_hash(root, "203.0.113.7", AT + timedelta(hours=3))
    assert same_day[0] == same_day[1]
    assert len(same_day[0]) == 32
    assert "203.0.113.7" not in same_day[0]
    assert client_hash(root, "203.0.113.7", AT + timedelta(days=1)) != same_day[0]
    assert client_hash(root, "203.0.113.8", AT) != same_day[0]
    assert client_hash(b"o" * 32, "203.0.113.7", AT) != same_day[0]  # without the root, no test of an address
    assert client_hash(root, "", AT) == client_hash(root, None, AT) == ""


def test_a_private_links_code_never_reaches_the_log():
    private = Link(code="Zx9" * 7 + "q", url="https://example.com/", owner="ws1", created_at=AT, private=True)
    public = Link(code="abc1234", url="https://example.com/", owner="ws1", created_at=AT)
    assert link_target(public) == "abc1234"
    hidden = link_target(private)
    assert hidden.startswith("private:")
    assert private.code not in hidden
    assert link_target(private) == hidden  # the same again: whoever holds the code finds its entries


@pytest.mark.parametrize(
    ("parameters", "parameter"),
    [
        ({"since": "yesterday"}, "since"),
        ({"since": "2026-12-01T00:00:00"}, "since"),  # no zone
        ({"until": "+1700000000000"}, "until"),
        ({"until": "\u0661\u0667" + "\u0660" * 11}, "until"),  # Arabic-Indic digits: not a number here
        ({"since": "99999999999999999999"}, "since"),
        ({"since": "2026-12-02T00:00:00Z", "until": "2026-12-01T00:00:00Z"}, "until"),
        ({"target": "account"}, "target"),
        ({"target_id": "abc1234"}, "target_id"),
        ({"limit": "0"}, "limit"),
        ({"limit": str(MAX_LIMIT + 1)}, "limit"),
        ({"limit": "1e2"}, "limit"),
        ({"limit": "²"}, "limit"),
        ({"cursor": "x" * 3000}, "cursor"),
    ],
)
def test_a_bad_query_parameter_is_refused_naming_it(parameters, parameter):
    with pytest.raises(InvalidAuditQuery) as refused:
        audit_query(parameters)
    assert refused.value.parameter == parameter
    assert str(refused.value).startswith(f"{parameter}: ")


def test_a_query_takes_iso_moments_or_epoch_milliseconds_a_kind_a_target_and_a_page():
    asked = {"since": "1764547200000", "until": "2026-12-02T01:00:00+01:00", "target": "link", "target_id": "a"}
    query = audit_query({**asked, "limit": "7"})
    assert query.since == datetime(2025, 12, 1, tzinfo=UTC)
    assert query.until == datetime(2026, 12, 2, tzinfo=UTC)
    assert (query.target_kind, query.target_id, query.limit, query.cursor) == ("link", "a", 7, None)
    assert audit_query({}).limit == 100
    assert [export_format(None), export_format(""), export_format("csv")] == ["json", "json", "csv"]
    with pytest.raises(InvalidAuditQuery, match=r"^format: must be one of json, csv$"):
        export_format("xlsx")


def test_the_csv_export_is_safe_to_open_in_a_spreadsheet():
    # Given entries whose key name and target a hostile admin chose to look like formulas
    hostile = entry(actor=RecordedActor("key", "0123456789ab", '=HYPERLINK("https://evil.example","x")'), target="+cmd")
    plain = entry(action="key.revoked", target="ba9876543210")
    rows = list(csv.reader(io.StringIO(entries_csv([hostile, plain]))))
    # Then each row holds the entry, and no cell starts a formula
    assert rows[0] == list(CSV_COLUMNS)
    assert len(rows) == 3
    by_column = dict(zip(rows[0], rows[1], strict=True))
    assert by_column["actor_label"] == '\'=HYPERLINK("https://evil.example","x")'
    assert by_column["target_id"] == "'+cmd"
    assert (by_column["action"], by_column["at"]) == ("link.edited", "2026-12-03T09:30:15.123Z")
    assert dict(zip(rows[0], rows[2], strict=True))["action"] == "key.revoked"
    for row in rows[1:]:
        assert not any(cell.startswith(("=", "+", "-", "@")) for cell in row)


def test_the_json_export_carries_every_field_of_every_entry_and_the_next_page():
    made = entry(changed=("url",))
    document = json.loads(entries_json([made], "next"))
    assert document == {"entries": [made.view()], "next_cursor": "next"}
    assert document["entries"][0]["actor"] == {"kind": "key", "id": "0123456789ab", "label": "deploy bot"}
    assert document["entries"][0]["target"] == {"kind": "link", "id": "abc1234"}
    assert set(document["entries"][0]) == {
        "id", "at", "workspace", "actor", "action", "target", "changed", "client", "request_id", "person",
    }  # fmt: skip
    assert document["entries"][0]["person"] is None  # a link's entry acts on no person


def test_a_member_entry_names_the_person_by_their_email_then_and_their_roles_before_and_after():
    changed = entry(
        "member.role_changed", "sub-1", changed=("role",), person=PersonChange("ed@example.com", "editor", "viewer")
    )
    invited = entry("member.invited", "0123456789ab", person=PersonChange("=cmd@example.com", "", "admin"))
    assert changed.view()["person"] == {"email": "ed@example.com", "old_role": "editor", "new_role": "viewer"}
    assert invited.view()["person"] == {"email": "=cmd@example.com", "old_role": None, "new_role": "admin"}
    rows = list(csv.DictReader(io.StringIO(entries_csv([changed, invited]))))
    assert [(row["person_email"], row["old_role"], row["new_role"]) for row in rows] == [
        ("ed@example.com", "editor", "viewer"),
        ("'=cmd@example.com", "", "admin"),  # a formula-like address stays text
    ]


@pytest.mark.parametrize(("raw", "days"), [(None, 365), ("", 365), ("1", 1), ("30", 30), (" 3650 ", 3650)])
def test_the_retention_is_a_whole_number_of_days_from_1_to_3650(raw, days):
    env = {"AUDIT_TABLE": "AuditLogTable"} | ({} if raw is None else {"AUDIT_RETENTION_DAYS": raw})
    assert AuditSettings.from_env(env) == AuditSettings("AuditLogTable", days)


@pytest.mark.parametrize("raw", ["0", "3651", "-5", "30.5", "\u0663\u0660", "1e3", "thirty"])
def test_a_retention_outside_its_range_or_not_in_digits_fails_loudly_naming_the_variable(raw):
    with pytest.raises(ConfigurationError, match=r"^AUDIT_RETENTION_DAYS: "):
        AuditSettings.from_env({"AUDIT_RETENTION_DAYS": raw})


def test_a_function_without_the_table_says_which_variable_is_missing():
    with pytest.raises(ConfigurationError, match="AUDIT_TABLE is not set"):
        AuditSettings.from_env({}).required_table()


def test_an_entry_is_a_webhook_event_only_endpoints_that_name_it_receive():
    made = entry()
    event = audit_event(made)
    assert (event.event_type, event.owner, event.tags, event.at) == ("audit.recorded", "ws1", (), made.at)
    assert event.data == made.view()
    assert "audit.recorded" in EVENT_TYPES
    assert "audit.recorded" not in DEFAULT_EVENT_TYPES
    assert parse_message(event.to_json()) == event


def test_the_recorder_writes_then_queues_or_hands_over_the_events_and_queues_nothing_unwritten():
    from shortlink.errors import StorageUnavailable

    trail, queue = InMemoryAuditTrail(), InMemoryEventQueue()
    recorder = AuditRecorder(trail, queue)
    first, second = entry(), entry(action="link.deleted")
    recorder.record([first])
    assert trail.entries == [first]
    assert [event.data for event in queue.sent] == [first.view()]
    along: list[EventMessage] = []
    recorder.record([second], along)
    assert trail.entries == [first, second]
    assert len(queue.sent) == 1
    assert [event.data["action"] for event in along] == ["link.deleted"]
    # An entry that cannot be written is the caller's failure, and no event tells of it
    failing = AuditRecorder(InMemoryAuditTrail(fails=True), queue)
    with pytest.raises(StorageUnavailable):
        failing.record([entry()])
    assert len(queue.sent) == 1
