"""The local edge front's origin group (tools.developers.devstack.origin_group): which origins a
request may try, as edge.yaml's behaviours decide it."""

import pytest

from tools.developers.devstack.origin_group import OriginGroup, own_behaviour_paths

PRIMARY, FAILOVER = 3000, 3001


@pytest.fixture(scope="module")
def group() -> OriginGroup:
    return OriginGroup(PRIMARY, FAILOVER, own_behaviour_paths())


def test_the_behaviours_of_their_own_are_read_from_the_template(group):
    assert {"/links", "/links/*", "/console/*", "/unlock/*"} <= set(group.own_paths)


def test_follows_fail_over_and_other_methods_on_the_redirects_behaviour_are_refused(group):
    assert group.origins("GET", "/abc") == (PRIMARY, FAILOVER)
    assert group.origins("HEAD", "/abc") == (PRIMARY, FAILOVER)
    assert group.origins("OPTIONS", "/abc") == (PRIMARY,)  # allowed, not failed over
    assert group.origins("POST", "/abc") is None
    assert group.origins("DELETE", "/") is None


def test_the_api_and_the_unlock_form_take_every_method_on_the_first_origin_only(group):
    assert group.origins("POST", "/unlock/abc") == (PRIMARY,)
    assert group.origins("POST", "/links") == (PRIMARY,)
    assert group.origins("GET", "/links/abc/stats") == (PRIMARY,)
    # A code that only starts like a reserved path is a follow
    assert group.origins("GET", "/unlocked") == (PRIMARY, FAILOVER)
