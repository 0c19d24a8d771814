"""`REGIONS=... make dev`: what the local stack of several regions is asked for, refused by name
when it cannot be run."""

import os

import pytest

from tools.developers.devstack.regions import RegionsSetting
from tools.developers.devstack.sqs_trigger import redelivery_chance


@pytest.fixture(autouse=True)
def _clean(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("REGIONS", "HOME_REGION", "REPLICATION_LAG_MS", "SHORTLINK_REDELIVERY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("AWS_REGION", "us-east-1")


def test_no_regions_is_the_single_region_stack_as_before():
    assert RegionsSetting.from_environment() is None


def test_one_region_is_the_single_region_stack_in_that_region(monkeypatch):
    monkeypatch.setenv("REGIONS", "eu-central-1")
    assert RegionsSetting.from_environment() is None
    assert (os.environ["AWS_REGION"], os.environ["AWS_DEFAULT_REGION"]) == ("eu-central-1", "eu-central-1")


def test_the_first_region_is_home_and_the_lag_defaults_to_half_a_second(monkeypatch):
    monkeypatch.setenv("REGIONS", "us-east-1, eu-central-1,ap-southeast-1")
    assert RegionsSetting.from_environment() == RegionsSetting(
        ("us-east-1", "eu-central-1", "ap-southeast-1"), "us-east-1", 500
    )
    monkeypatch.setenv("HOME_REGION", "eu-central-1")
    monkeypatch.setenv("REPLICATION_LAG_MS", "300")
    assert RegionsSetting.from_environment() == RegionsSetting(
        ("us-east-1", "eu-central-1", "ap-southeast-1"), "eu-central-1", 300
    )


@pytest.mark.parametrize(
    ("variables", "named"),
    [
        ({"REGIONS": "us-east-1,Europe"}, "'Europe' is not a region name"),
        ({"REGIONS": "us-east-1,us-east-1"}, "names a region twice"),
        ({"REGIONS": "us-east-1,us-east-2,us-west-1,us-west-2,eu-west-1,eu-west-2"}, "at most 5 regions"),
        ({"REGIONS": "us-east-1,eu-central-1", "HOME_REGION": "ap-southeast-1"}, "HOME_REGION 'ap-southeast-1'"),
        ({"REGIONS": "us-east-1,eu-central-1", "REPLICATION_LAG_MS": "0.5s"}, "REPLICATION_LAG_MS must be"),
    ],
)
def test_what_cannot_run_is_refused_by_name(monkeypatch, variables, named):
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(SystemExit, match=named):
        RegionsSetting.from_environment()


def test_redelivery_is_a_chance(monkeypatch):
    assert redelivery_chance() == 0
    monkeypatch.setenv("SHORTLINK_REDELIVERY", "0.3")
    assert redelivery_chance() == 0.3
    for refused in ("1.5", "often"):
        monkeypatch.setenv("SHORTLINK_REDELIVERY", refused)
        with pytest.raises(SystemExit, match="SHORTLINK_REDELIVERY must be a number from 0 to 1"):
            redelivery_chance()
