"""`make secrets` for a deployment in several regions: the same values everywhere, never two."""

import boto3
import pytest
from moto import mock_aws

from tests.integration.conftest import use_moto_credentials
from tools.operators import secrets as secrets_command

THREE_REGIONS = ["eu-central-1", "us-east-1", "ap-southeast-1"]
NAMES = [
    "/shortlink/global/permutation-key",
    "/shortlink/global/visitor-salt",
    "/shortlink/global/edge-secret",
    "/shortlink/global/console-session-secret",
]


@pytest.fixture
def ssm(monkeypatch):
    """An SSM client per region of the samconfig.toml example, in one moto account."""
    use_moto_credentials(monkeypatch)
    with mock_aws():
        yield {region: boto3.client("ssm", region_name=region) for region in THREE_REGIONS}


def values(ssm, name):
    found = {}
    for region, client in ssm.items():
        try:
            found[region] = client.get_parameter(Name=name, WithDecryption=True)["Parameter"]["Value"]
        except client.exceptions.ParameterNotFound:
            found[region] = None
    return found


def test_the_environment_names_its_regions():
    assert secrets_command.environment_regions("global-us") == THREE_REGIONS
    assert secrets_command.environment_regions("prod") == []
    assert [secret.name for secret in secrets_command.stack_secrets("global-ap")] == NAMES


def test_every_region_gets_the_same_new_values_once_and_none_is_printed(ssm, capsys):
    # When the three-region environment's secrets are made
    secrets_command.main(["--env", "global-eu"])
    printed = capsys.readouterr().out
    # Then each has one value, the same in every region, never shown
    first = {}
    for name in NAMES:
        found = values(ssm, name)
        assert len(set(found.values())) == 1, name
        value = found["eu-central-1"]
        assert value is not None
        assert len(value) >= 64
        assert value not in printed
        assert f"created {name} " in printed
        first[name] = value
    assert len(set(first.values())) == len(NAMES)  # four secrets, four different values
    assert printed.count("in eu-central-1, us-east-1, ap-southeast-1\n") == len(NAMES)
    # and a second run keeps them all
    secrets_command.main(["--env", "global-us"])
    printed = capsys.readouterr().out
    for name in NAMES:
        assert set(values(ssm, name).values()) == {first[name]}
        assert f"kept    {name}" in printed


def test_a_region_without_a_value_gets_the_one_the_others_hold(ssm, capsys):
    # Given a deployment whose third region was added later (or lost a parameter)
    secrets_command.main(["--env", "global-eu"])
    ssm["ap-southeast-1"].delete_parameter(Name="/shortlink/global/permutation-key")
    held = values(ssm, "/shortlink/global/permutation-key")["eu-central-1"]
    capsys.readouterr()
    # When secrets run again
    secrets_command.main(["--env", "global-eu"])
    # Then it holds the key the others hold, not a new one
    assert values(ssm, "/shortlink/global/permutation-key") == dict.fromkeys(THREE_REGIONS, held)
    assert (
        "copied  /shortlink/global/permutation-key (the code permutation key) from eu-central-1, us-east-1 "
        "to ap-southeast-1" in capsys.readouterr().out
    )
    kind = ssm["ap-southeast-1"].get_parameter(Name="/shortlink/global/permutation-key")["Parameter"]["Type"]
    assert kind == "SecureString"


def test_a_region_with_a_different_value_is_reported_and_nothing_is_written(ssm, capsys):
    # Given a region whose visitor salt was made apart from the others', and a region lacking a key
    secrets_command.main(["--env", "global-eu"])
    ssm["us-east-1"].put_parameter(
        Name="/shortlink/global/visitor-salt", Type="SecureString", Value="another-salt-" * 6, Overwrite=True
    )
    ssm["ap-southeast-1"].delete_parameter(Name="/shortlink/global/permutation-key")
    capsys.readouterr()
    # When secrets run, they refuse, naming the parameter and how the regions split (no value)
    with pytest.raises(secrets_command.RegionsDisagree) as refused:
        secrets_command.main(["--env", "global-eu"])
    message = str(refused.value)
    assert "/shortlink/global/visitor-salt" in message
    assert "value 1 in eu-central-1, ap-southeast-1; value 2 in us-east-1" in message
    assert "another-salt-" not in message
    assert "permutation-key" not in message
    # and write nothing, not even what was missing
    assert values(ssm, "/shortlink/global/permutation-key")["ap-southeast-1"] is None
    assert capsys.readouterr().out == ""


def test_the_domain_settings_are_copied_from_the_region_they_were_written_in(ssm):
    settings = secrets_command.Secret("/shortlink/global/domains", "the short domains' settings", "String", False)
    # Not written anywhere yet: nothing is made up
    [line] = secrets_command.share_secrets(ssm, [settings])
    assert line.startswith("missing /shortlink/global/domains")
    assert set(values(ssm, settings.name).values()) == {None}
    # Written in one region: copied to the others, unchanged
    document = '{"sho.rt": {"root_url": "https://example.com/"}}'
    ssm["eu-central-1"].put_parameter(Name=settings.name, Type="String", Value=document)
    secrets_command.share_secrets(ssm, [settings])
    assert values(ssm, settings.name) == dict.fromkeys(THREE_REGIONS, document)
