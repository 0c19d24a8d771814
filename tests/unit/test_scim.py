"""SCIM's pure parts: filters and paging, PATCH as Okta and Entra send it, groups' names mapped to
roles, and the tokens (hashed, prefixed, revoked ones refused)."""

from dataclasses import replace
from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from shortlink.scim.errors import ScimProblem
from shortlink.scim.model import ProvisionedGroup, ProvisionedUser, role_from_groups, role_of_group
from shortlink.scim.patches import PATCH_SCHEMA, patched_group, patched_user
from shortlink.scim.queries import Page, page_of, parsed_filter
from shortlink.scim.tokens import ScimToken, authenticated, hash_token, issue_token

NOW = datetime(2026, 12, 6, tzinfo=UTC)
USER = ProvisionedUser("u1", "ws", "lee@example.com", NOW, NOW)
GROUP = ProvisionedGroup("g1", "ws", "Shortlink Editors", NOW, NOW)
USERS = frozenset({"username", "externalid", "id"})
ENTERPRISE = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"


def patch(*operations: dict[str, object]) -> dict[str, object]:
    return {"schemas": [PATCH_SCHEMA], "Operations": list(operations)}


def test_eq_filters_match_user_names_in_any_case_and_external_ids_exactly():
    by_name = parsed_filter('userName eq "Lee@Example.com"', USERS)
    assert by_name is not None
    assert by_name.matches({"username": "lee@example.com"})
    by_id = parsed_filter('externalId eq "00u\\"x"', USERS)  # a JSON escape inside the value
    assert by_id is not None
    assert by_id.value == '00u"x'
    assert not by_id.matches({"externalid": '00U"X'})
    assert parsed_filter(None, USERS) is None
    assert parsed_filter("", USERS) is None


@pytest.mark.parametrize(
    "text",
    ['userName co "a"', 'userName eq "a" and active eq true', "userName eq a", 'title eq "x"', "x" * 600,
     'userName eq "a" or userName eq "b"', 'emails[type eq "work"].value eq "a"'],
)  # fmt: skip
def test_other_filters_are_refused_as_invalid_filter(text):
    with pytest.raises(ScimProblem) as refused:
        parsed_filter(text, USERS)
    assert (refused.value.status, refused.value.scim_type) == (400, "invalidFilter")


def test_paging_is_one_based_and_bounded():
    assert page_of({}) == Page(1, 100)
    assert page_of({"startIndex": "0", "count": "-5"}) == Page(1, 0)
    assert page_of({"startIndex": "3", "count": "1000"}) == Page(3, 100)
    assert Page(2, 2).of(["a", "b", "c", "d", "e"]) == ["b", "c"]
    for bad in ("1e3", "٣", "1.5", "²"):
        with pytest.raises(ScimProblem):
            page_of({"count": bad})


@given(st.integers(min_value=-5, max_value=30), st.integers(min_value=-5, max_value=30))
def test_a_page_never_holds_more_than_asked_nor_starts_before_the_first(start, count):
    page = page_of({"startIndex": str(start), "count": str(count)})
    items = list(range(20))
    assert page.start_index >= 1
    assert len(page.of(items)) <= max(0, count)
    assert page.of(items) == items[page.start_index - 1 : page.start_index - 1 + page.count]


@pytest.mark.parametrize(
    "operation",
    [
        {"op": "Replace", "path": "active", "value": "False"},  # Entra
        {"op": "replace", "value": {"active": False}},  # Okta
        {"op": "replace", "path": "active", "value": False},
    ],
)
def test_okta_and_entra_deactivations_both_deactivate(operation):
    assert patched_user(USER, patch(operation), NOW).active is False


def test_a_user_patch_keeps_what_the_workspace_keeps_and_ignores_the_rest():
    changed = patched_user(USER, patch(
        {"op": "Add", "path": "name.givenName", "value": "Lee"},
        {"op": "replace", "value": {"name": {"familyName": "Ver"}, "externalId": "x1", "title": "CFO"}},
        {"op": "Replace", "path": f"{ENTERPRISE}:department", "value": "x"},
        {"op": "replace", "path": "userName", "value": "NEW@Example.com"},
    ), NOW)  # fmt: skip
    assert (changed.given_name, changed.family_name, changed.external_id, changed.user_name) == (
        "Lee", "Ver", "x1", "new@example.com",
    )  # fmt: skip


@pytest.mark.parametrize(
    ("body", "scim_type"),
    [
        ({"Operations": [{"op": "replace", "path": "active", "value": False}]}, "invalidValue"),  # no schemas
        (patch({"op": "move", "path": "active", "value": False}), "invalidValue"),
        (patch({"op": "replace", "path": "active", "value": "no"}), "invalidValue"),
        (patch({"op": "remove", "path": "userName"}), "mutability"),
        (patch({"op": "replace", "path": "userName", "value": "  "}), "invalidValue"),
        (patch({"op": "replace", "path": "userName", "value": "a\x00b"}), "invalidValue"),
        (patch({"op": "replace", "value": "not an object"}), "invalidValue"),
        (patch(*[{"op": "replace", "path": "active", "value": True}] * 101), "invalidValue"),
    ],
)
def test_bad_user_patches_are_refused(body, scim_type):
    with pytest.raises(ScimProblem) as refused:
        patched_user(USER, body, NOW)
    assert (refused.value.status, refused.value.scim_type) == (400, scim_type)


def test_group_members_are_added_and_removed_as_okta_and_entra_send_them():
    added = patched_group(
        GROUP, patch({"op": "add", "path": "members", "value": [{"value": "u1"}, {"value": "u2"}]}), NOW
    )
    assert added.members == {"u1", "u2"}
    okta = patched_group(added, patch({"op": "remove", "path": 'members[value eq "u1"]'}), NOW)
    entra = patched_group(added, patch({"op": "Remove", "path": "members", "value": [{"value": "u1"}]}), NOW)
    assert okta.members == entra.members == {"u2"}
    renamed = patched_group(added, patch({"op": "replace", "value": {"id": "g1", "displayName": "Viewers"}}), NOW)
    assert (renamed.display_name, renamed.members) == ("Viewers", added.members)


def test_group_names_map_to_roles_and_never_to_owner():
    names = {
        "Shortlink Editors": "editor", "viewer": "viewer", "marketing-admins": "admin", "ADMIN": "admin",
        "Owners": None, "Shortlink": None, "": None, "Editorial": None,
    }  # fmt: skip
    assert {name: role_of_group(name) for name in names} == names
    editors = replace(GROUP, members=frozenset({"u1"}))
    admins = ProvisionedGroup("g2", "ws", "Admins", NOW, NOW, members=frozenset({"u1"}))
    assert role_from_groups("u1", [editors]) == "editor"
    assert role_from_groups("u1", [editors, admins]) == "admin"  # the most powerful
    assert role_from_groups("u2", [editors, admins]) == "viewer"  # in none: the default


class Tokens:
    def __init__(self) -> None:
        self.stored: dict[str, ScimToken] = {}

    def add(self, token_hash: str, token: ScimToken) -> None:
        self.stored[token_hash] = token

    def find_by_hash(self, token_hash: str) -> ScimToken | None:
        return self.stored.get(token_hash)

    def of_workspace(self, workspace_id: str) -> list[ScimToken]:
        return list(self.stored.values())

    def revoke(self, workspace_id: str, token_id: str) -> bool:
        for key, token in self.stored.items():
            self.stored[key] = replace(token, revoked=token.revoked or token.token_id == token_id)
        return True


def test_a_token_is_stored_only_as_its_hash_and_stops_when_revoked():
    tokens = Tokens()
    token, plaintext = issue_token(tokens, "ws", "owner@example.com", NOW)
    assert plaintext.startswith("scim_")
    assert len(plaintext) == 37
    assert list(tokens.stored) == [hash_token(plaintext)]
    assert plaintext not in str(tokens.stored)
    assert authenticated(f"Bearer {plaintext}", tokens) == token
    assert authenticated(f"Bearer {plaintext}x", tokens) is None
    assert authenticated("Basic abc", tokens) is None
    tokens.revoke("ws", token.token_id)
    assert authenticated(f"Bearer {plaintext}", tokens) is None
