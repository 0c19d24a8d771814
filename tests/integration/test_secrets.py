"""`python -m tools.operators.secrets` creates each environment's secrets once and never shows them."""

import boto3
import pytest
from moto import mock_aws

from tests.integration.conftest import use_moto_credentials
from tools.operators import secrets as secrets_command


@pytest.fixture
def ssm(monkeypatch):
    use_moto_credentials(monkeypatch)
    with mock_aws():
        yield boto3.client("ssm")


def test_names_follow_samconfig():
    assert [s.name for s in secrets_command.stack_secrets("default")] == [
        "/shortlink/dev/permutation-key",
        "/shortlink/dev/visitor-salt",
        "/shortlink/dev/edge-secret",
        "/shortlink/dev/console-session-secret",
    ]
    assert [s.name for s in secrets_command.stack_secrets("prod")] == [
        "/shortlink/prod/permutation-key",
        "/shortlink/prod/visitor-salt",
        "/shortlink/prod/edge-secret",
        "/shortlink/prod/console-session-secret",
    ]


def test_secrets_are_created_once_as_securestrings_and_never_printed(ssm, capsys):
    secrets_command.main(["--env", "prod"])
    printed = capsys.readouterr().out
    values = {}
    for name in (
        "/shortlink/prod/permutation-key",
        "/shortlink/prod/visitor-salt",
        "/shortlink/prod/console-session-secret",
    ):
        parameter = ssm.get_parameter(Name=name, WithDecryption=True)["Parameter"]
        assert parameter["Type"] == "SecureString"
        assert len(parameter["Value"]) >= 64
        assert parameter["Value"] not in printed
        assert f"created {name}" in printed
        values[name] = parameter["Value"]
    assert len(set(values.values())) == 3

    secrets_command.main(["--env", "prod"])
    printed = capsys.readouterr().out
    for name, value in values.items():
        assert ssm.get_parameter(Name=name, WithDecryption=True)["Parameter"]["Value"] == value
        assert f"kept    {name}" in printed


def test_an_unknown_environment_is_refused():
    with pytest.raises(SystemExit, match="no environment 'staging'"):
        secrets_command.stack_secrets("staging")


def test_the_edge_secret_is_a_string_parameter_cloudformation_can_resolve_into_cloudfront(ssm, capsys):
    secrets_command.main(["--env", "prod"])
    parameter = ssm.get_parameter(Name="/shortlink/prod/edge-secret")["Parameter"]
    assert parameter["Type"] == "String"  # ssm-secure does not resolve in CloudFront origin headers
    assert len(parameter["Value"]) >= 64
    assert parameter["Value"] not in capsys.readouterr().out
