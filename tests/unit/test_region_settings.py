"""SHORTLINK_REGIONS and SHORTLINK_HOME_REGION: a deployment of several regions, parsed once."""

import pytest

from shortlink.config import MAX_REGIONS, ConfigurationError, Settings

THREE = "eu-central-1,us-east-1,ap-southeast-1"


def test_no_regions_is_a_single_region_deployment_as_before():
    for env in ({"AWS_REGION": "us-east-1"}, {"AWS_REGION": "us-east-1", "SHORTLINK_REGIONS": "us-east-1"}):
        config = Settings.from_env(env)
        assert not config.several_regions
        assert (config.region_index, config.home_region, config.home_region_name) == (0, "us-east-1", None)
        assert config.region_name is None
        assert not config.away_from_home
    # Tools and tests name their region the older way
    assert Settings.from_env({"AWS_DEFAULT_REGION": "eu-west-1"}).region == "eu-west-1"


def test_each_region_knows_its_place_and_its_home():
    for index, region in enumerate(THREE.split(",")):
        config = Settings.from_env(
            {"AWS_REGION": region, "SHORTLINK_REGIONS": f" {THREE} ", "SHORTLINK_HOME_REGION": "us-east-1"}
        )
        assert config.several_regions
        assert config.regions == tuple(THREE.split(","))
        assert config.region_index == index
        assert config.home_region == "us-east-1"
        assert (config.home_region_name, config.region_name) == ("us-east-1", region)
        assert config.away_from_home == (region != "us-east-1")


def test_without_a_home_region_each_region_is_its_own():
    config = Settings.from_env({"AWS_REGION": "ap-southeast-1", "SHORTLINK_REGIONS": THREE})
    assert (config.home_region, config.away_from_home, config.region_index) == ("ap-southeast-1", False, 2)


@pytest.mark.parametrize(
    ("env", "problem"),
    [
        ({"SHORTLINK_REGIONS": "eu-central-1,us-east-1"}, "does not name this function's region 'ap-southeast-1'"),
        ({"SHORTLINK_REGIONS": f"{THREE},us-east-1"}, "names a region twice"),
        ({"SHORTLINK_REGIONS": "ap-southeast-1,Frankfurt"}, "'Frankfurt' is not a region name"),
        ({"SHORTLINK_REGIONS": THREE, "SHORTLINK_HOME_REGION": "us-west-2"}, "'us-west-2' is not one of"),
        ({"SHORTLINK_HOME_REGION": "us-east-1"}, "'us-east-1' is not one of SHORTLINK_REGIONS"),
        (
            {"SHORTLINK_REGIONS": ",".join(f"ap-southeast-{n}" for n in range(1, MAX_REGIONS + 2))},
            f"more than {MAX_REGIONS} regions",
        ),
    ],
)
def test_a_wrong_deployment_fails_loudly_naming_the_variable(env, problem):
    with pytest.raises(ConfigurationError, match=problem):
        Settings.from_env({"AWS_REGION": "ap-southeast-1", **env})
