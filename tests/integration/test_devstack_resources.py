"""The local stack's tables come from the template, also on a store without Time to Live."""

from typing import Any

import boto3
from botocore.exceptions import ClientError
from moto import mock_aws

from tools.developers.devstack.resources import create_tables

# What template.yaml declares its tables as (global tables, one replica per region).
from tools.developers.devstack.template import GLOBAL_TABLE_TYPE as TABLE_TYPE


def refuse_time_to_live(**_: Any) -> None:
    # What dynalite (a DynamoDB without TTL) answers UpdateTimeToLive with.
    answer: Any = {"Error": {"Code": "UnknownOperationException", "Message": ""}}
    raise ClientError(answer, "UpdateTimeToLive")


def test_a_store_without_ttl_gets_every_table_and_says_which_lack_their_ttl(template, monkeypatch):
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    with mock_aws():
        dynamodb = boto3.client("dynamodb")
        dynamodb.meta.events.register("before-call.dynamodb.UpdateTimeToLive", refuse_time_to_live)
        without_ttl = create_tables(template, dynamodb)
        with_ttl = [
            name for name, table in template.resources(TABLE_TYPE).items() if "TimeToLiveSpecification" in table
        ]
        assert with_ttl
        assert sorted(without_ttl) == sorted(with_ttl)
        assert set(template.resources(TABLE_TYPE)) <= set(dynamodb.list_tables()["TableNames"])


def test_ttl_is_set_where_the_store_has_it(template, monkeypatch):
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    with mock_aws():
        dynamodb = boto3.client("dynamodb")
        assert create_tables(template, dynamodb) == []
        for name, table in template.resources(TABLE_TYPE).items():
            described = dynamodb.describe_time_to_live(TableName=name)["TimeToLiveDescription"]
            expected = "ENABLED" if "TimeToLiveSpecification" in table else "DISABLED"
            assert described["TimeToLiveStatus"] == expected, name


def test_the_local_user_pool_is_people_yamls(aws, template):
    """make dev's pool and app client are made from people.yaml's resources: its sign-in by
    email, its password policy, optional TOTP and the client's password flow."""
    import boto3

    from tools.developers.devstack.people import create_user_pool

    cognito = boto3.client("cognito-idp")
    pool = create_user_pool(template, cognito, "http://127.0.0.1:5005")
    described = cognito.describe_user_pool(UserPoolId=pool.user_pool_id)["UserPool"]
    assert described["UsernameAttributes"] == ["email"]
    assert described["Policies"]["PasswordPolicy"]["MinimumLength"] == 12
    assert described["AdminCreateUserConfig"]["AllowAdminCreateUserOnly"] is True
    assert cognito.get_user_pool_mfa_config(UserPoolId=pool.user_pool_id)["MfaConfiguration"] == "OPTIONAL"
    client = cognito.describe_user_pool_client(UserPoolId=pool.user_pool_id, ClientId=pool.client_id)["UserPoolClient"]
    # With passkeys, as people.yaml makes them with a domain (the local one: localhost)
    assert set(client["ExplicitAuthFlows"]) == {
        "ALLOW_USER_PASSWORD_AUTH",
        "ALLOW_REFRESH_TOKEN_AUTH",
        "ALLOW_USER_AUTH",
    }
    assert described["UserPoolTier"] == "ESSENTIALS"
    assert described["Policies"]["SignInPolicy"]["AllowedFirstAuthFactors"] == ["PASSWORD", "WEB_AUTHN"]
    assert pool.environment()["PEOPLE_JWKS_URL"] == f"http://127.0.0.1:5005/{pool.user_pool_id}/.well-known/jwks.json"
