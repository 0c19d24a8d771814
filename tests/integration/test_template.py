"""template.yaml and its nested stacks (edge.yaml, monitoring.yaml...) are the single source of truth:
lint them and check what they promise."""

import fnmatch
import json
import os
import re
import subprocess
from graphlib import TopologicalSorter
from pathlib import Path
from typing import Any
from unittest.mock import patch

import cfnlint.api
import pytest
from samcli.lib.providers.sam_function_provider import SamFunctionProvider
from samcli.lib.providers.sam_stack_provider import SamLocalStackProvider
from samcli.yamlhelper import yaml_parse
from samtranslator.translator.transform import transform

from shortlink.links.slugs import RESERVED_SLUGS
from shortlink.settings.functions import FUNCTIONS
from shortlink.settings.resources import Resources
from shortlink.web.edge import EDGE_SECRET_HEADER
from tools.developers.devstack.template import LocalTemplate, nested_templates
from tools.operators import secrets as secrets_command

ROOT = Path(__file__).resolve().parents[2]
# The templates a deploy sends: the main one and each nested stack it includes from a local file.
TEMPLATES = [ROOT / "template.yaml", *nested_templates(ROOT / "template.yaml").values()]
# The edge, its domains and DNS, the regions' routing and the stack's own hosts (the Edge application).
EDGE = "edge.yaml"
# The last release whose tables were plain AWS::DynamoDB::Table resources of one region.
SINGLE_REGION_RELEASE = "5a71bd9"


def subprocess_text(*command: str) -> str:
    return subprocess.run(command, cwd=ROOT, check=True, capture_output=True, text=True).stdout


class NoManagedPolicies:
    """SAM's policy loader, for a template that names no managed policy."""

    def load(self) -> dict[str, str]:
        return {}


@pytest.mark.parametrize("path", TEMPLATES, ids=lambda path: path.name)
def test_cfn_lint_finds_nothing(path):
    matches = cfnlint.api.lint_file(path)
    assert [str(match) for match in matches] == []


def read(path: str) -> dict[str, Any]:
    """One template as written (YAML anchors and merge keys expanded)."""
    template: dict[str, Any] = yaml_parse((ROOT / path).read_text())
    return template


# The user pool's custom message trigger (people.yaml): no function of the layer, it has neither
# the Globals' environment nor settings of the shortlink package.
POOL_TRIGGERS = {"InvitationMessageFunction"}


def layer_functions(stacks: list[Any]) -> list[Any]:
    """Every function of these stacks that runs the shortlink package (all but the pool's trigger)."""
    return [function for function in SamFunctionProvider(stacks).get_all() if function.name not in POOL_TRIGGERS]


def test_the_edge_is_a_nested_stack_created_only_when_something_stands_before_the_api():
    main = read("template.yaml")
    application = main["Resources"]["Edge"]
    assert (application["Type"], application["Properties"]["Location"]) == ("AWS::Serverless::Application", EDGE)
    # Nothing of it without a domain, the edge or several regions (their health checks)
    assert application["Condition"] == "HasWayIn"
    assert main["Conditions"]["HasWayIn"] == {"Fn::Or": [{"Condition": "HasOtherHosts"}, {"Condition": "HasRegions"}]}
    assert main["Conditions"]["HasOtherHosts"] == {
        "Fn::Or": [{"Condition": "HasDomain"}, {"Condition": "EdgeEnabled"}, {"Condition": "OnLoadBalancer"}]
    }
    assert "Edge" not in Rendered({}).resources()
    assert {"Edge", "EdgeDistribution"} <= set(Rendered({"EnableEdge": "true"}).resources())
    # Every parameter it declares is given, and nothing it does not declare
    declared = read(EDGE)["Parameters"]
    assert set(application["Properties"]["Parameters"]) == set(declared)
    # None of the edge's resources is left in the main template
    edge_resources = set(read(EDGE)["Resources"])
    assert not edge_resources & set(main["Resources"])


def policy_actions(template: LocalTemplate, function: str) -> set[str]:
    properties = template.stacks[0].template_dict["Resources"][function]["Properties"]
    actions: set[str] = set()
    for policy in properties.get("Policies", []):
        for statement in policy["Statement"]:
            statement = statement.get("Fn::If", [None, statement])[1]  # a statement of a condition
            found = statement["Action"]
            actions.update([found] if isinstance(found, str) else found)
    return actions


@pytest.mark.parametrize(
    ("function", "actions"),
    [
        (
            "RedirectFunction",
            {
                "dynamodb:GetItem",
                "dynamodb:UpdateItem",
                "dynamodb:Query",
                "sqs:SendMessage",
                "ssm:GetParameter",
                # The IP databases of an IpDatabaseBucket, fetched after a response.
                "s3:GetObject",
                "s3:ListBucket",
            },
        ),
        (
            "CreateFunction",
            {
                "dynamodb:PutItem",
                "dynamodb:UpdateItem",
                "dynamodb:GetItem",
                "dynamodb:DeleteItem",
                "ssm:GetParameter",
                "sqs:SendMessage",
            },
        ),
        (
            "ManageFunction",
            {
                "dynamodb:GetItem",
                "dynamodb:UpdateItem",
                "dynamodb:Query",
                "dynamodb:PutItem",  # its audit entries, QR styles, domain claims, a moved link
                "dynamodb:BatchGetItem",  # a bulk change's links
                "dynamodb:DeleteItem",  # a bulk change's idempotency record when its change fails; a QR style dropped
                "dynamodb:Scan",  # a workspace's own domains, listed as its members are
                "ssm:GetParameter",
                "sqs:SendMessage",
            },
        ),
        (
            "IngestFunction",
            {
                "dynamodb:UpdateItem",
                "dynamodb:GetItem",
                "dynamodb:PutItem",
                "sqs:SendMessage",
                # With the edge tier: the edge's log stream, the links its clicks followed, the visitor salt
                "ssm:GetParameter",
                "kinesis:GetRecords",
                "kinesis:GetShardIterator",
                "kinesis:DescribeStream",
                "kinesis:DescribeStreamSummary",
                "kinesis:ListShards",
                "kinesis:SubscribeToShard",
                # With the click lake: its rows, a few records per batch
                "firehose:PutRecordBatch",
            },
        ),
        (
            "EdgeSyncFunction",
            {
                "dynamodb:Scan",
                "dynamodb:Query",
                "cloudfront-keyvaluestore:DescribeKeyValueStore",
                "cloudfront-keyvaluestore:ListKeys",
                "cloudfront-keyvaluestore:UpdateKeys",
            },
        ),
        ("EdgeCountsFunction", {"cloudwatch:GetMetricData"}),
        ("AccountStatsFunction", {"dynamodb:UpdateItem", "dynamodb:GetItem", "dynamodb:PutItem"}),
        (
            "LakeCheckFunction",
            {
                "dynamodb:Scan",  # the counters' day items
                "athena:StartQueryExecution",
                "athena:GetQueryExecution",
                "athena:GetQueryResults",
                # Athena reads the table and the rows and writes its results as the caller
                "glue:GetDatabase",
                "glue:GetTable",
                "glue:GetPartitions",
                "s3:GetBucketLocation",
                "s3:ListBucket",
                "s3:GetObject",
                "s3:PutObject",
                "s3:AbortMultipartUpload",
            },
        ),
        (
            "WebhookEndpointsFunction",
            {
                "dynamodb:GetItem",
                "dynamodb:Query",
                "dynamodb:PutItem",
                "dynamodb:UpdateItem",  # an edit or a new secret, on condition
                "dynamodb:DeleteItem",
                "ssm:GetParameter",
                "sqs:SendMessage",  # audit.recorded events
            },
        ),
        (
            "WebhooksFunction",
            {
                "dynamodb:Query",
                "dynamodb:GetItem",
                "dynamodb:UpdateItem",
                "dynamodb:BatchGetItem",
                "sqs:SendMessage",
                "sqs:ChangeMessageVisibility",
            },
        ),
        (
            "KeysFunction",
            {
                "dynamodb:GetItem",
                "dynamodb:UpdateItem",
                "dynamodb:PutItem",
                "dynamodb:Scan",
                "dynamodb:Query",  # GET /audit
                "ssm:GetParameter",  # the visitor salt its audit entries hash addresses with
                "sqs:SendMessage",  # audit.recorded events
            },
        ),
        (
            "TeamFunction",
            {
                "dynamodb:GetItem",
                "dynamodb:UpdateItem",
                "dynamodb:PutItem",
                "dynamodb:Scan",
                "dynamodb:BatchGetItem",  # the workspace's name, for the invitation's email
                "cognito-idp:AdminCreateUser",  # Cognito's invitation email, as the console's
                "cognito-idp:AdminSetUserPassword",
                "cognito-idp:AdminDeleteUser",
                "cognito-idp:AdminGetUser",
                "ses:SendEmail",
                "ssm:GetParameter",
                "sqs:SendMessage",
            },
        ),
        (
            "TransferFunction",
            {
                "dynamodb:GetItem",
                "dynamodb:PutItem",
                "dynamodb:UpdateItem",
                "dynamodb:BatchGetItem",
                "dynamodb:Query",
                "ssm:GetParameter",
                "sqs:SendMessage",  # audit.recorded events
                # With the click lake, raw exports: the query, its table, rows and files.
                *("athena:StartQueryExecution", "athena:GetQueryExecution"),
                *("glue:GetDatabase", "glue:GetTable", "glue:GetPartitions", "s3:GetBucketLocation", "s3:ListBucket"),
                *("s3:GetObject", "s3:PutObject", "s3:AbortMultipartUpload"),
            },
        ),
        (
            "ConsoleFunction",
            {
                "dynamodb:GetItem",
                "dynamodb:BatchGetItem",
                "dynamodb:PutItem",
                "dynamodb:UpdateItem",
                "dynamodb:Query",
                "dynamodb:Scan",  # the Keys page lists the account's keys
                "dynamodb:DeleteItem",  # the Members page removes a membership
                "ssm:GetParameter",
                "sqs:SendMessage",  # audit.recorded events
                # With the click lake, the Raw export page: the query, its table, rows and files.
                *("athena:StartQueryExecution", "athena:GetQueryExecution"),
                *("glue:GetDatabase", "glue:GetTable", "glue:GetPartitions", "s3:GetBucketLocation", "s3:ListBucket"),
                *("s3:GetObject", "s3:PutObject", "s3:AbortMultipartUpload"),
                # Invitations accepted by signing up make the person's account; SES sends invitations.
                "cognito-idp:AdminCreateUser",
                "cognito-idp:AdminSetUserPassword",
                "cognito-idp:AdminDeleteUser",
                "cognito-idp:AdminGetUser",  # an invited account never used is sent the invitation again
                "cognito-idp:AdminUserGlobalSignOut",  # a password reset ends the pool's sessions
                "cognito-idp:DescribeUserPool",  # the password rule the reset page states
                "cognito-idp:AdminSetUserMFAPreference",  # TOTP off, after signing in again
                # With single sign-on, Settings > Single sign-on: a workspace's provider, on the SSO client.
                *("cognito-idp:CreateIdentityProvider", "cognito-idp:UpdateIdentityProvider"),
                *("cognito-idp:DeleteIdentityProvider", "cognito-idp:DescribeIdentityProvider"),
                *("cognito-idp:DescribeUserPoolClient", "cognito-idp:UpdateUserPoolClient"),
                "ses:SendEmail",
            },
        ),
    ],
)
def test_each_function_may_do_only_what_it_needs(template, function, actions):
    assert policy_actions(template, function) == actions


def test_the_audit_log_is_append_only_to_every_function(template):
    # Given every statement of every function that names the audit table
    resources = template.stacks[0].template_dict["Resources"]
    granted: dict[str, set[str]] = {}
    for name, resource in resources.items():
        if resource["Type"] != "AWS::Serverless::Function":
            continue
        for policy in resource["Properties"].get("Policies", []):
            for statement in policy["Statement"]:
                if "AuditLogTable" in json.dumps(statement.get("Resource")):
                    actions = statement["Action"]
                    granted.setdefault(name, set()).update([actions] if isinstance(actions, str) else actions)
    # Then the writers may only put and the readers only query: no function edits or deletes an entry
    assert granted == {
        "CreateFunction": {"dynamodb:PutItem"},
        "ManageFunction": {"dynamodb:PutItem"},
        "TransferFunction": {"dynamodb:PutItem"},
        "WebhookEndpointsFunction": {"dynamodb:PutItem"},
        "KeysFunction": {"dynamodb:PutItem", "dynamodb:Query"},
        "ConsoleFunction": {"dynamodb:PutItem", "dynamodb:Query"},
        "TeamFunction": {"dynamodb:PutItem"},
    }
    # and entries expire after AuditRetentionDays (1 to 3650, a year by default), the table's TTL
    parameter = template.stacks[0].template_dict["Parameters"]["AuditRetentionDays"]
    assert (parameter["Default"], parameter["MinValue"], parameter["MaxValue"]) == (365, 1, 3650)
    table = resources["AuditLogTable"]["Properties"]
    assert table["TimeToLiveSpecification"] == {"AttributeName": "expires_at_epoch", "Enabled": True}


def test_create_deletes_only_its_own_idempotency_records(template):
    properties = template.stacks[0].template_dict["Resources"]["CreateFunction"]["Properties"]
    statements = [statement for policy in properties["Policies"] for statement in policy["Statement"]]
    deleting = [statement for statement in statements if "dynamodb:DeleteItem" in statement["Action"]]
    # The table by name, in this region or the home region (every replica of it shares its name)
    assert [statement["Resource"] for statement in deleting] == [
        {
            "Fn::Sub": "arn:${AWS::Partition}:dynamodb:*:${AWS::AccountId}:table/"
            "${TableNamePrefix}IdempotencyTable${IdempotencyTableSuffix}"
        }
    ]


def test_every_function_has_its_handler_on_python_3_13_with_the_common_layer(template):
    assert set(template.functions) == {
        "CreateFunction",
        "RedirectFunction",
        "ManageFunction",
        "IngestFunction",
        "DocsFunction",
        "WebhookEndpointsFunction",
        "WebhooksFunction",
        "KeysFunction",
        "TeamFunction",
        "TransferFunction",
        "ConsoleFunction",
        "AccountStatsFunction",
        "EdgeSyncFunction",
        "LakeCheckFunction",
        "EdgeCountsFunction",
        "InvitationMessageFunction",  # people.yaml's: the user pool's custom message trigger, no layer
    }
    for function in template.functions.values():
        module, _, _ = (function.handler or "").rpartition(".")
        assert (ROOT / (function.codeuri or "") / f"{module}.py").is_file()
        assert function.runtime == "python3.13"
        layers = [] if function.name == "InvitationMessageFunction" else ["CommonLayer"]
        assert [layer.name for layer in function.layers] == layers


def test_routes_and_trigger(template):
    routes = {(method, route.path): route.function_name for route in template.api().routes for method in route.methods}
    assert routes == {
        ("POST", "/links"): "CreateFunction",
        ("POST", "/links/bulk"): "CreateFunction",
        ("GET", "/{code}"): "RedirectFunction",
        ("HEAD", "/{code}"): "RedirectFunction",
        ("POST", "/{code}"): "RedirectFunction",
        ("POST", "/unlock/{code}"): "RedirectFunction",
        ("GET", "/robots.txt"): "RedirectFunction",
        ("GET", "/"): "RedirectFunction",
        ("GET", "/.well-known/{file}"): "RedirectFunction",
        ("GET", "/audit"): "KeysFunction",
        ("GET", "/links/{code}/stats"): "ManageFunction",
        ("GET", "/stats"): "ManageFunction",
        ("GET", "/links"): "ManageFunction",
        ("GET", "/links/{code}"): "ManageFunction",
        ("PATCH", "/links/{code}"): "ManageFunction",
        ("DELETE", "/links/{code}"): "ManageFunction",
        ("POST", "/links/{code}/restore"): "ManageFunction",
        ("GET", "/links/{code}/qr"): "ManageFunction",
        ("GET", "/links/{code}/qr-style"): "ManageFunction",
        ("PUT", "/links/{code}/qr-style"): "ManageFunction",
        ("DELETE", "/links/{code}/qr-style"): "ManageFunction",
        ("PUT", "/links/qr-style"): "ManageFunction",
        ("POST", "/links/bulk/changes"): "ManageFunction",
        ("GET", "/domains"): "ManageFunction",
        ("POST", "/domains"): "ManageFunction",
        ("POST", "/domains/{domain}/verify"): "ManageFunction",
        ("DELETE", "/domains/{domain}"): "ManageFunction",
        ("GET", "/openapi.json"): "DocsFunction",
        ("GET", "/docs"): "DocsFunction",
        ("POST", "/webhooks"): "WebhookEndpointsFunction",
        ("GET", "/webhooks"): "WebhookEndpointsFunction",
        ("DELETE", "/webhooks/{endpoint_id}"): "WebhookEndpointsFunction",
        ("PATCH", "/webhooks/{endpoint_id}"): "WebhookEndpointsFunction",
        ("POST", "/webhooks/{endpoint_id}/secret"): "WebhookEndpointsFunction",
        ("POST", "/keys"): "KeysFunction",
        ("GET", "/keys"): "KeysFunction",
        ("DELETE", "/keys/{key_id}"): "KeysFunction",
        ("GET", "/people/me"): "KeysFunction",
        ("GET", "/members"): "TeamFunction",
        ("PATCH", "/members/{subject}"): "TeamFunction",
        ("DELETE", "/members/{subject}"): "TeamFunction",
        ("GET", "/invitations"): "TeamFunction",
        ("POST", "/invitations"): "TeamFunction",
        ("POST", "/invitations/{invitation_id}/resend"): "TeamFunction",
        ("DELETE", "/invitations/{invitation_id}"): "TeamFunction",
        ("PATCH", "/workspace"): "TeamFunction",
        ("POST", "/workspaces"): "TeamFunction",
        ("POST", "/links/import"): "TransferFunction",
        ("GET", "/links/export"): "TransferFunction",
        ("POST", "/clicks/exports"): "TransferFunction",
        ("GET", "/clicks/exports/{export_id}"): "TransferFunction",
        ("GET", "/console"): "ConsoleFunction",
        ("GET", "/console/{proxy+}"): "ConsoleFunction",
        ("POST", "/console/{proxy+}"): "ConsoleFunction",
        ("GET", "/scim/v2/{proxy+}"): "ConsoleFunction",
        ("POST", "/scim/v2/{proxy+}"): "ConsoleFunction",
        ("PUT", "/scim/v2/{proxy+}"): "ConsoleFunction",
        ("PATCH", "/scim/v2/{proxy+}"): "ConsoleFunction",
        ("DELETE", "/scim/v2/{proxy+}"): "ConsoleFunction",
    }
    triggers = {(t.function_name, t.queue_id, t.reports_item_failures) for t in template.sqs_triggers()}
    assert triggers == {("IngestFunction", "ClicksQueue", True), ("WebhooksFunction", "WebhookDeliveryQueue", True)}
    # The stream aggregator: in order per shard, a failed batch retried whole, the shard's id in
    # its events (a tumbling window), the table's stream with both images.
    streams = {(stream.function_name, stream.table_id) for stream in template.stream_triggers()}
    # and the edge tier's sync (docs/edge.md)
    assert streams == {("AccountStatsFunction", "ClickStatsTable"), ("EdgeSyncFunction", "LinksTable")}
    (event,) = template.functions["AccountStatsFunction"].events.values()
    properties = event["Properties"]
    assert (properties["ParallelizationFactor"], properties["BisectBatchOnFunctionError"]) == (1, False)
    assert properties["TumblingWindowInSeconds"] > 0
    stats_table = template.resources("AWS::DynamoDB::GlobalTable")["ClickStatsTable"]
    assert stats_table["StreamSpecification"] == {"StreamViewType": "NEW_AND_OLD_IMAGES"}


def test_webhook_deliveries_are_dead_lettered_after_their_last_attempt_and_loopback_is_never_deployed(template):
    from shortlink.webhooks.deliveries import MAX_ATTEMPTS, RETRY_DELAYS_SECONDS

    resources = template.stacks[0].template_dict["Resources"]
    queue = resources["WebhookDeliveryQueue"]["Properties"]
    assert queue["RedrivePolicy"]["maxReceiveCount"] == MAX_ATTEMPTS
    # The last attempt comes about a day after the first, and the message outlives it.
    assert 20 * 3600 <= sum(RETRY_DELAYS_SECONDS) <= 26 * 3600 < queue["MessageRetentionPeriod"]
    assert "SHORTLINK_WEBHOOKS_ALLOW_LOOPBACK" not in (ROOT / "template.yaml").read_text()


CERTIFICATE = "arn:aws:acm:us-east-1:123456789012:certificate/0a1b2c3d"


@pytest.mark.parametrize(
    ("overrides", "base_url"),
    [
        ({}, ""),
        ({"PublicBaseUrl": "https://go.example"}, "https://go.example"),
        (
            {"DomainName": "sho.rt", "CertificateArn": CERTIFICATE, "PublicBaseUrl": "https://go.example"},
            "https://sho.rt",
        ),
        ({"Domains": "sho.rt,go.example", "CertificateArn": CERTIFICATE}, "https://sho.rt"),
        ({"Domains": "go.example", "DomainName": "sho.rt", "CertificateArn": CERTIFICATE}, "https://go.example"),
    ],
)
def test_short_urls_name_the_short_domain_whenever_there_is_one(overrides, base_url):
    # Resolved the way SAM CLI resolves a deployment's parameters (conditions included).
    stacks, _ = SamLocalStackProvider.get_stacks(str(ROOT / "template.yaml"), parameter_overrides=overrides)
    functions = layer_functions(stacks)
    assert functions
    for function in functions:
        assert function.environment["Variables"]["PUBLIC_BASE_URL"] == base_url, function.name
        assert function.architectures == ["arm64"]
        expected_domains = overrides.get("Domains") or overrides.get("DomainName", "")
        assert function.environment["Variables"]["SHORT_DOMAINS"] == expected_domains, function.name


def test_an_existing_stacks_domain_stays_its_first_domain_and_the_others_are_added():
    # Upgrading DomainName=sho.rt to Domains=sho.rt,go.example: ShortDomain keeps its name (no
    # replacement), the second domain is a resource of its own, with the edge all are aliases.
    single = edge_stack({"DomainName": "sho.rt", "CertificateArn": CERTIFICATE})
    several = edge_stack({"Domains": "sho.rt,go.example", "CertificateArn": CERTIFICATE})
    for stack in (single, several):
        assert stack.resources["ShortDomain"]["Properties"]["DomainName"] == "sho.rt"
    assert several.resources["SecondShortDomain"]["Properties"]["DomainName"] == "go.example"
    template = read(EDGE)
    resources, conditions = template["Resources"], template["Conditions"]
    assert resources["SecondShortDomain"]["Condition"] == "SecondDomainOnApi"
    assert resources["ThirdShortDomain"]["Condition"] == "ThirdDomainOnApi"
    assert resources["EdgeHostFunction"]["Condition"] == "HostFunctionAlone"  # the edge tier's function names it else
    assert conditions["HostFunctionAlone"] == {
        "Fn::And": [{"Condition": "EdgeServesSeveralDomains"}, {"Fn::Not": [{"Condition": "EdgeTierOn"}]}]
    }
    assert conditions["EdgeServesSeveralDomains"] == {
        "Fn::And": [{"Condition": "HasSecondDomain"}, {"Condition": "EdgeHere"}]
    }
    # The edge's function copies the viewer's Host into the header the redirect reads
    code = resources["EdgeHostFunction"]["Properties"]["FunctionCode"]
    assert "request.headers['x-shortlink-host'] = {value: host}" in code
    # On every behaviour: the API's requests need the domain as the redirects do (without the
    # edge tier, whose function does it: tests/integration/test_edge_template.py)
    edge_of_two = Rendered({"EnableEdge": "true", "Domains": "sho.rt,go.example", "CertificateArn": CERTIFICATE})
    distribution = edge_of_two.resources()["EdgeDistribution"]["Properties"]["DistributionConfig"]
    behaviours = [distribution["DefaultCacheBehavior"], *distribution["CacheBehaviors"]]
    assert len(behaviours) > 1
    for behaviour in behaviours:
        assert behaviour["FunctionAssociations"] == [
            {
                "EventType": "viewer-request",
                "FunctionARN": {"Fn::GetAtt": ["EdgeHostFunction", "FunctionMetadata.FunctionARN"]},
            }
        ]
    # Whose host is in the edge cache's key, so that the domains' cached answers stay apart
    headers = resources["EdgeRedirectCachePolicy"]["Properties"]["CachePolicyConfig"][
        "ParametersInCacheKeyAndForwardedToOrigin"
    ]["HeadersConfig"]["Fn::If"]
    assert headers == [
        "EdgeServesSeveralDomains",
        {"HeaderBehavior": "whitelist", "Headers": ["X-Shortlink-Host"]},
        {"HeaderBehavior": "none"},
    ]


def edge_stack(overrides: dict[str, str]) -> Any:
    """The Edge nested stack as SAM CLI reads it for these parameters of the main template."""
    stacks, _ = SamLocalStackProvider.get_stacks(str(ROOT / "template.yaml"), parameter_overrides=overrides)
    [edge] = [stack for stack in stacks if stack.stack_path == "Edge"]
    return edge


LOCAL_ONLY_VARIABLES = ("AWS_ENDPOINT_URL", "PERMUTATION_KEY", "VISITOR_SALT", "CONSOLE_SESSION_SECRET")


def deployed_template(parameters: dict[str, str] | None = None, text: str | None = None) -> dict[str, Any]:
    """The CloudFormation template `sam deploy` would send (SAM's own transform, code on S3), of
    template.yaml or of the template `text`."""
    template = yaml_parse(text if text is not None else (ROOT / "template.yaml").read_text())
    for resource in template["Resources"].values():
        uri = {"AWS::Serverless::Function": "CodeUri", "AWS::Serverless::LayerVersion": "ContentUri"}
        if resource["Type"] in uri:
            resource["Properties"][uri[resource["Type"]]] = "s3://artifacts/code.zip"
    with patch.dict(os.environ, {"AWS_DEFAULT_REGION": "us-east-1"}):
        return dict(transform(template, parameters or {}, NoManagedPolicies()))


def test_local_only_variables_are_declared_for_sam_local_and_absent_when_deployed():
    # Deployed: CloudFormation drops a property whose value is AWS::NoValue, so no function has
    # them (an empty AWS_ENDPOINT_URL is not "unset" to every SDK).
    functions = [r for r in deployed_template()["Resources"].values() if r["Type"] == "AWS::Lambda::Function"]
    assert len(functions) == 15
    for function in functions:
        variables = function["Properties"]["Environment"]["Variables"]
        for name in LOCAL_ONLY_VARIABLES:
            assert variables[name] == {"Ref": "AWS::NoValue"}, name
    # sam local sets through --env-vars only what a function declares: every function declares them.
    stacks, _ = SamLocalStackProvider.get_stacks(str(ROOT / "template.yaml"))
    for function in layer_functions(stacks):
        assert set(LOCAL_ONLY_VARIABLES) <= set(function.environment["Variables"]), function.name


def test_the_architecture_is_a_parameter_for_native_local_runs():
    stacks, _ = SamLocalStackProvider.get_stacks(
        str(ROOT / "template.yaml"), parameter_overrides={"Architecture": "x86_64"}
    )
    for function in SamFunctionProvider(stacks).get_all():
        assert function.architectures == ["x86_64"], function.name
    [layer] = [
        resource for resource in stacks[0].resources.values() if resource["Type"] == "AWS::Serverless::LayerVersion"
    ]
    assert layer["Metadata"]["BuildArchitecture"] == "x86_64"
    assert layer["Properties"]["CompatibleArchitectures"] == ["x86_64"]


@pytest.mark.parametrize(
    ("overrides", "told"),
    [({}, False), ({"EnableEdge": "true"}, True), ({"DomainName": "sho.rt", "CertificateArn": CERTIFICATE}, True)],
)
def test_functions_are_told_where_the_stacks_other_hosts_are_when_it_has_some(overrides, told):
    # Without a domain or the edge every request comes in on the execute-api domain itself.
    stacks, _ = SamLocalStackProvider.get_stacks(str(ROOT / "template.yaml"), parameter_overrides=overrides)
    [edge] = [stack for stack in stacks if stack.stack_path == "Edge"]
    named = edge.resources["OwnHostsParameter"]["Properties"]["Name"]
    for function in layer_functions(stacks):
        assert function.environment["Variables"]["OWN_HOSTS_PARAMETER"] == (named if told else ""), function.name
    for function in ("CreateFunction", "ManageFunction"):
        statements = stacks[0].resources[function]["Properties"]["Policies"][0]["Statement"]
        readable = [statement["Resource"] for statement in statements if statement["Action"] == "ssm:GetParameter"]
        arns = [arn for resource in readable for arn in (resource if isinstance(resource, list) else [resource])]
        assert any(arn.endswith(f":parameter{named}") for arn in arns), function
    value = edge.resources["OwnHostsParameter"]["Properties"]["Value"]
    assert value.split(",")[0] == "ShortlinkApi.execute-api.us-east-1.localhost"  # SAM's local reading of it
    assert ("EdgeDistribution.DomainName" in value) == (overrides.get("EnableEdge") == "true")


def test_no_resource_depends_on_itself_once_sam_has_transformed_the_template():
    # cfn-lint misses a cycle through an HttpApi's routes: the API depends on its functions, so a
    # function's environment that referenced the API or the distribution could not deploy.
    resources = deployed_template({"EnableEdge": "true", "DomainName": "sho.rt"})["Resources"]
    dependencies = {
        name: {found for found in re.findall(r"[A-Za-z0-9]+", json.dumps(resource)) if found in resources} - {name}
        for name, resource in resources.items()
    }
    TopologicalSorter(dependencies).prepare()  # raises CycleError


def test_the_custom_domain_and_its_dns_exist_only_when_asked_for():
    template = read(EDGE)
    resources, conditions = template["Resources"], template["Conditions"]
    # Without the edge, the domain is an API Gateway domain (or the load balancer's); with it, a CloudFront alias.
    assert conditions["DomainOnApi"] == {
        "Fn::And": [
            {"Condition": "HasDomain"},
            {"Fn::Not": [{"Condition": "EdgeEnabled"}]},
            {"Fn::Not": [{"Condition": "OnLoadBalancer"}]},
        ]
    }
    assert conditions["DomainOnEdge"] == {"Fn::And": [{"Condition": "HasDomain"}, {"Condition": "EdgeHere"}]}
    assert resources["ShortDomain"]["Condition"] == "DomainOnApi"
    assert resources["ShortDomainMapping"]["Condition"] == "DomainOnApi"
    assert resources["ShortDomain"]["Properties"]["DomainNameConfigurations"][0]["SecurityPolicy"] == "TLS_1_2"
    # The A record is the load balancer's too (switching fronts updates it), the AAAA a dual-stack one's
    assert resources["ShortDomainRecordIpv4"]["Condition"] == "DnsForRegion"
    assert resources["ShortDomainRecordIpv6"]["Condition"] == "Ipv6DnsForRegion"
    for record in ("EdgeDomainRecordIpv4", "EdgeDomainRecordIpv6"):
        assert resources[record]["Condition"] == "DnsForEdge"


# API Gateway's $context variables that never hold the request's path or query ($context.path,
# $context.domainName... are not among them); routeKey is the route template, `GET /{code}`.
ACCESS_LOG_VARIABLES_WITHOUT_THE_PATH = {
    "requestId",
    "identity.sourceIp",
    "requestTimeEpoch",
    "routeKey",
    "status",
    "responseLatency",
    "integrationErrorMessage",
}


def test_the_access_log_is_one_json_line_on_by_default_and_optional():
    template = yaml_parse((ROOT / "template.yaml").read_text())
    resources = template["Resources"]
    assert template["Parameters"]["AccessLogs"]["Default"] == "Enabled"
    condition, enabled, disabled = resources["ShortlinkApi"]["Properties"]["AccessLogSettings"]["Fn::If"]
    assert (condition, disabled) == ("HasAccessLogs", {"Ref": "AWS::NoValue"})
    assert enabled["DestinationArn"] == {"Fn::GetAtt": ["ApiAccessLogs", "Arn"]}
    line = re.sub(r"\$context\.[A-Za-z.]+", "x", enabled["Format"])
    assert set(json.loads(line)) == {"requestId", "ip", "time", "routeKey", "status", "latencyMs", "error"}
    # None of its values can carry the request's path or query: a private link's code is its capability.
    assert set(re.findall(r"\$context\.([A-Za-z.]+)", enabled["Format"])) <= ACCESS_LOG_VARIABLES_WITHOUT_THE_PATH
    group = resources["ApiAccessLogs"]
    assert group["Condition"] == "HasAccessLogs"
    assert group["Properties"]["LogGroupClass"] == "INFREQUENT_ACCESS"


def test_the_edge_is_https_caches_only_what_the_origin_allows_and_forwards_the_viewer_context():
    resources = read(EDGE)["Resources"]
    distribution = resources["EdgeDistribution"]
    assert distribution["Condition"] == "EdgeHere"
    config = distribution["Properties"]["DistributionConfig"]
    origin, failover = config["Origins"]  # the second region's only with EdgeFailoverOrigin (docs/edge.md)
    assert failover["Fn::If"][0] == "HasFailoverOrigin"
    assert origin["CustomOriginConfig"]["OriginProtocolPolicy"] == "https-only"
    default = config["DefaultCacheBehavior"]
    assert default["ViewerProtocolPolicy"] == "redirect-to-https"
    # No TTL of its own: a 302/307 (Cache-Control: no-store) is never cached, a 301/308 only per
    # its own Cache-Control.
    cache_policy = resources["EdgeRedirectCachePolicy"]["Properties"]["CachePolicyConfig"]
    assert (cache_policy["MinTTL"], cache_policy["DefaultTTL"]) == (0, 0)
    assert (
        cache_policy["ParametersInCacheKeyAndForwardedToOrigin"]["QueryStringsConfig"]["QueryStringBehavior"] == "all"
    )
    all_viewer_except_host = "b689b0a8-53d0-40ab-baf2-68738e2966ac"
    assert default["OriginRequestPolicyId"] == all_viewer_except_host
    for api in config["CacheBehaviors"]:
        assert api["CachePolicyId"] == "4135ea2d-6df8-44a3-9df3-4b5a84be39ad"  # CachingDisabled
        assert api["OriginRequestPolicyId"] == all_viewer_except_host
    assert config["WebACLId"] == {"Fn::If": ["HasWebAcl", {"Ref": "WebAclArn"}, {"Ref": "AWS::NoValue"}]}


# Functions whose routes take no API key: the redirect's public answers, the docs, and the
# console (a cookie, which the default behaviour passes).
KEYLESS_FUNCTIONS = {"RedirectFunction", "DocsFunction", "ConsoleFunction"}


def edge_behaviour_of(path: str, behaviours: list[dict[str, Any]]) -> str:
    """The pattern CloudFront picks for a path: the first that matches (`*` any characters,
    `?` one, case-sensitive), else the default behaviour."""
    for behaviour in behaviours:
        if fnmatch.fnmatchcase(path, behaviour["PathPattern"]):
            return str(behaviour["PathPattern"])
    return "default"


def test_the_edge_passes_every_keyed_route_uncached_and_leaves_every_short_code_to_the_redirects():
    resources = read("template.yaml")["Resources"]
    behaviours = read(EDGE)["Resources"]["EdgeDistribution"]["Properties"]["DistributionConfig"]["CacheBehaviors"]
    keyed = sorted(
        event["Properties"]["Path"]
        for name, resource in resources.items()
        if resource["Type"] == "AWS::Serverless::Function" and name not in KEYLESS_FUNCTIONS
        for event in resource["Properties"].get("Events", {}).values()
        if event["Type"] == "HttpApi"
    )
    assert "/stats" in keyed
    assert "/webhooks/{endpoint_id}" in keyed
    # Every route that takes a key reaches a CachingDisabled behaviour (the only kind that passes
    # Authorization on a GET), with its path parameters filled in as a request would
    for path in keyed:
        request = re.sub(r"\{[a-z_]+\}", "x1", path)
        assert edge_behaviour_of(request, behaviours) != "default", path
    # Each pattern is a reserved name or its subpaths, so no short code can fall into one
    for behaviour in behaviours:
        name = behaviour["PathPattern"].removeprefix("/").removesuffix("/*")
        assert "*" not in name, behaviour["PathPattern"]
        assert "?" not in name, behaviour["PathPattern"]
        assert name in RESERVED_SLUGS, behaviour["PathPattern"]
    # Codes that merely start like the API's paths are redirects, cached as their answers allow
    for code in ("/links-2026", "/keystone", "/statsx", "/webhooks2", "/Links", "/consoles"):
        assert edge_behaviour_of(code, behaviours) == "default", code


def test_every_function_believes_viewer_headers_only_with_the_secret_cloudfront_adds():
    template = yaml_parse((ROOT / "template.yaml").read_text())
    resources = template["Resources"]
    functions = [r for r in resources.values() if r["Type"] == "AWS::Serverless::Function"]
    secret = {"Fn::Sub": "{{resolve:ssm:${EdgeSecretParameter}}}"}
    # CloudFront sets the secret on every request it sends to the API (the edge is told the
    # parameter's name and resolves it itself: no secret passes as a nested stack's parameter)...
    assert resources["Edge"]["Properties"]["Parameters"]["EdgeSecretParameter"] == {"Ref": "EdgeSecretParameter"}
    origin, failover = read(EDGE)["Resources"]["EdgeDistribution"]["Properties"]["DistributionConfig"]["Origins"]
    for told in (origin, failover["Fn::If"][1]):  # the second region's origin is told it too
        [header] = told["OriginCustomHeaders"]
        assert (header["HeaderName"].lower(), header["HeaderValue"]) == (EDGE_SECRET_HEADER, secret)
    # ...and every function gets the same secret only with the edge (the redirect's rules, the
    # console's sign-in limits, the audit log's addresses): without it, nothing is believed
    variables = template["Globals"]["Function"]["Environment"]["Variables"]
    assert variables["EDGE_SECRET"] == {"Fn::If": ["EdgeEnabled", secret, ""]}
    assert all("EDGE_SECRET" not in (r["Properties"].get("Environment") or {}).get("Variables", {}) for r in functions)
    assert "TRUST_EDGE_HEADERS" not in json.dumps(template)
    stacks, _ = SamLocalStackProvider.get_stacks(str(ROOT / "template.yaml"))
    for function in layer_functions(stacks):
        assert function.environment["Variables"].get("EDGE_SECRET", "") == "", function.name
    # The secret is kept in SSM under the name `make secrets` creates
    assert template["Parameters"]["EdgeSecretParameter"]["Default"] == secrets_command.TEMPLATE_DEFAULT_EDGE_PARAMETER


# The variable that tells a function each table or queue (shortlink.settings.resources).
RESOURCE_VARIABLES = {
    "LinksTable": "LINKS_TABLE",
    "ApiKeysTable": "API_KEYS_TABLE",
    "CountersTable": "COUNTERS_TABLE",
    "ClickStatsTable": "CLICK_STATS_TABLE",
    "ClicksQueue": "CLICKS_QUEUE_URL",
    "WebhooksTable": "WEBHOOKS_TABLE",
    "WebhookDeliveryQueue": "WEBHOOK_QUEUE_URL",
    "IdempotencyTable": "IDEMPOTENCY_TABLE",
}


def test_each_function_is_told_what_its_settings_require_and_only_the_resources_it_may_use(template):
    services = set()
    for name, function in template.functions.items():
        if name in POOL_TRIGGERS:
            continue
        # Given what the template gives the function (SAM CLI resolves a !Ref to the logical id)
        variables = {
            variable: str(value)
            for variable, value in (function.environment or {}).get("Variables", {}).items()
            if value is not None and not isinstance(value, dict)  # AWS::NoValue: local only
        }
        function = FUNCTIONS[variables["POWERTOOLS_SERVICE_NAME"]]
        services.add(variables["POWERTOOLS_SERVICE_NAME"])
        # Then each concern it reads reads it without a missing or wrong variable...
        assert set(function.read(variables)) == {Resources, *function.reads}, name
        # ...and the tables and queues it is told are exactly those its policy lets it use.
        policies = json.dumps(template.stacks[0].template_dict["Resources"][name]["Properties"].get("Policies", []))
        granted = {
            variable for resource, variable in RESOURCE_VARIABLES.items() if re.search(rf"\b{resource}\b", policies)
        }
        assert set(variables) & set(RESOURCE_VARIABLES.values()) == granted, name
        assert set(function.requires) <= granted, name
    assert services == set(FUNCTIONS)


# Every table a redirect or the API reads (and the webhooks' and idempotency records, which a
# region answering after a failover needs as well).
GLOBAL_TABLES = ("LinksTable", "ApiKeysTable", "CountersTable", "ClickStatsTable", "IdempotencyTable", "WebhooksTable")
# What an import checks against the existing table (and a change to the keys would replace it),
# and the expiry its items keep.
TABLE_IDENTITY = (
    "KeySchema",
    "AttributeDefinitions",
    "GlobalSecondaryIndexes",
    "LocalSecondaryIndexes",
    "BillingMode",
    "TimeToLiveSpecification",
)


def test_upgrading_a_single_region_stack_keeps_every_table_its_logical_id_name_keys_and_data():
    # Given the template of the last release with plain tables, whose names CloudFormation generated
    # (<stack>-<logical id>-<random>)
    before = yaml_parse(subprocess_text("git", "show", f"{SINGLE_REGION_RELEASE}:template.yaml"))["Resources"]
    after = yaml_parse((ROOT / "template.yaml").read_text())["Resources"]
    assert {name for name, r in before.items() if r["Type"] == "AWS::DynamoDB::Table"} == set(GLOBAL_TABLES)
    for name in GLOBAL_TABLES:
        old, new = before[name], after[name]
        # Then each is a global table under the same logical id, kept whatever a deploy does
        assert new["Type"] == "AWS::DynamoDB::GlobalTable", name
        assert (new["DeletionPolicy"], new["UpdateReplacePolicy"]) == ("Retain", "Retain"), name
        # with the same keys, indexes, billing and expiry
        for key in TABLE_IDENTITY:
            assert new["Properties"].get(key) == old["Properties"].get(key), (name, key)
        # and a name that can be the one it has: the prefix and suffix adopt the generated name
        assert new["Properties"]["TableName"] == {"Fn::Sub": f"${{TableNamePrefix}}{name}${{{name}Suffix}}"}
    stacks, _ = SamLocalStackProvider.get_stacks(
        str(ROOT / "template.yaml"),
        parameter_overrides={"TableNamePrefix": "shortlink-prod-", "LinksTableSuffix": "-1QX7ZK2M9ABCD"},
    )
    assert stacks[0].resources["LinksTable"]["Properties"]["TableName"] == "shortlink-prod-LinksTable-1QX7ZK2M9ABCD"
    for function in layer_functions(stacks):
        variables = function.environment["Variables"]
        if "LINKS_TABLE" in variables:
            assert variables["LINKS_TABLE"] == "shortlink-prod-LinksTable-1QX7ZK2M9ABCD", function.name


def test_one_region_by_default_and_every_listed_region_a_replica_of_the_home_regions_tables():
    template = yaml_parse((ROOT / "template.yaml").read_text())
    parameters, conditions, resources = template["Parameters"], template["Conditions"], template["Resources"]
    assert (parameters["Regions"]["Default"], parameters["HomeRegion"]["Default"]) == ("", "")
    # The home region's stack (or a single region's) owns the tables; the others use them by name
    assert conditions["HomeHere"] == {
        "Fn::Or": [
            {"Fn::Equals": [{"Ref": "HomeRegion"}, ""]},
            {"Fn::Equals": [{"Ref": "HomeRegion"}, {"Ref": "AWS::Region"}]},
        ]
    }
    assert conditions["OwnsTables"] == {
        "Fn::And": [{"Fn::Equals": [{"Ref": "TablesInStack"}, "true"]}, {"Condition": "HomeHere"}]
    }
    replicas = resources["LinksTable"]["Properties"]["Replicas"]
    for name in GLOBAL_TABLES:
        table = resources[name]
        assert table["Condition"] == "OwnsTables"
        assert table["Properties"]["Replicas"] == replicas, name
        # MREC (the default): TTL and transactions work; several replicas need a stream
        assert "MultiRegionConsistency" not in table["Properties"], name
        assert table["Properties"]["StreamSpecification"] == {"StreamViewType": "NEW_AND_OLD_IMAGES"}, name
    # Without Regions, the one replica is the stack's own region; with them, one per region listed
    first, *others = replicas
    assert first["Region"] == {
        "Fn::If": ["HasRegions", {"Fn::Select": [0, {"Fn::Split": [",", {"Ref": "Regions"}]}]}, {"Ref": "AWS::Region"}]
    }
    assert len(others) == 4  # five regions at most
    for index, replica in enumerate(others, start=1):
        condition, listed, absent = replica["Fn::If"]
        assert absent == {"Ref": "AWS::NoValue"}
        assert listed["Region"] == {"Fn::Select": [index, {"Fn::Split": [",", {"Fn::Sub": "${Regions},,,,"}]}]}
        assert conditions[condition] == {"Fn::Not": [{"Fn::Equals": [listed["Region"], ""]}]}
    for replica in [first, *(other["Fn::If"][1] for other in others)]:
        assert replica["PointInTimeRecoverySpecification"] == {"PointInTimeRecoveryEnabled": True}
    # Every function is told the regions and the home region (empty: one region, its own)
    stacks, _ = SamLocalStackProvider.get_stacks(
        str(ROOT / "template.yaml"),
        parameter_overrides={"Regions": "eu-central-1,us-east-1,ap-southeast-1", "HomeRegion": "eu-central-1"},
    )
    for function in layer_functions(stacks):
        variables = function.environment["Variables"]
        assert variables["SHORTLINK_REGIONS"] == "eu-central-1,us-east-1,ap-southeast-1", function.name
        assert variables["SHORTLINK_HOME_REGION"] == "eu-central-1", function.name


def test_a_region_reaches_its_own_replica_and_the_home_regions_by_the_tables_names():
    resources = yaml_parse((ROOT / "template.yaml").read_text())["Resources"]
    granted = [
        statement["Resource"]
        for resource in resources.values()
        if resource["Type"] == "AWS::Serverless::Function"
        for policy in resource["Properties"].get("Policies", [])
        for statement in policy["Statement"]
        if "Action" in statement and "dynamodb:" in json.dumps(statement["Action"])
    ]
    arns = [arn for resource in granted for arn in (resource if isinstance(resource, list) else [resource])]
    assert arns
    for arn in arns:
        # Any region of the deployment (the replicas share the name), never another table
        text = arn["Fn::Sub"]
        assert text.startswith("arn:${AWS::Partition}:dynamodb:*:${AWS::AccountId}:table/${TableNamePrefix}"), text
        # (a table made after the upgrade to global tables has no suffix to adopt an old name with)
        pattern = r"table/\$\{TableNamePrefix\}(AuditLogTable|(\w+Table)\$\{\2Suffix\})(/index/\w+)?$"
        assert re.search(pattern, text), text
    # The stream of this region's replica: the one named (outside the home region), else the table's
    (event,) = resources["AccountStatsFunction"]["Properties"]["Events"].values()
    assert event["Properties"]["Stream"] == {
        "Fn::If": [
            "HasClickStatsStreamArn",
            {"Ref": "ClickStatsStreamArn"},
            {"Fn::GetAtt": ["ClickStatsTable", "StreamArn"]},
        ]
    }


class Rendered:
    """A template as CloudFormation renders it for some parameters in one region: conditions
    evaluated, `Fn::If` chosen, `AWS::NoValue` dropped (the other intrinsics are left as written),
    and the nested stacks it creates rendered with the parameters it gives them."""

    def __init__(self, parameters: dict[str, Any], region: str = "us-east-1", path: str = "template.yaml") -> None:
        self.path = path
        self.template = yaml_parse((ROOT / path).read_text())
        defaults = {name: str(p.get("Default", "")) for name, p in self.template["Parameters"].items()}
        self.values = {**defaults, **parameters, "AWS::Region": region}
        self.conditions: dict[str, bool] = {}

    def condition(self, name: str) -> bool:
        if name not in self.conditions:
            self.conditions[name] = bool(self.value(self.template["Conditions"][name]))
        return self.conditions[name]

    def value(self, node: Any) -> Any:
        if isinstance(node, list):
            return [v for v in (self.value(item) for item in node) if v is not NO_VALUE]
        if not isinstance(node, dict):
            return node
        if len(node) == 1:
            [(function, argument)] = node.items()
            if function == "Ref" and argument == "AWS::NoValue":
                return NO_VALUE
            if function == "Ref" and argument in self.values:
                return self.values[argument]
            if function == "Condition":
                return self.condition(argument)
            if function == "Fn::If":
                condition, chosen, otherwise = argument
                return self.value(chosen if self.condition(condition) else otherwise)
            if function in {"Fn::Equals", "Fn::Not", "Fn::And", "Fn::Or", "Fn::Select", "Fn::Split"}:
                values = self.value(argument)
                if function in {"Fn::Select", "Fn::Split"} and not isinstance(values[1], list | str):
                    return {function: values}  # of a value known only once deployed
                return {
                    "Fn::Equals": lambda: values[0] == values[1],
                    "Fn::Not": lambda: not values[0],
                    "Fn::And": lambda: all(values),
                    "Fn::Or": lambda: any(values),
                    "Fn::Select": lambda: values[1][int(values[0])],
                    "Fn::Split": lambda: values[1].split(values[0]),
                }[function]()
            if function == "Fn::Join":
                separator, parts = self.value(argument)
                if all(isinstance(part, str) for part in parts):  # else a value known only once deployed
                    return separator.join(parts)
                return {function: [separator, parts]}
            if function == "Fn::Sub":
                text, names = (argument, {}) if isinstance(argument, str) else self.value(argument)
                known = {name: v for name, v in {**self.values, **names}.items() if isinstance(v, str)}
                if all(name in known for name in re.findall(r"\$\{([A-Za-z:]+)\}", text)):
                    return re.sub(r"\$\{([A-Za-z:]+)\}", lambda m: known[m.group(1)], text)
        return {k: v for k, v in ((k, self.value(v)) for k, v in node.items()) if v is not NO_VALUE}

    def own_resources(self) -> dict[str, Any]:
        """The resources of this template that this stack creates, rendered."""
        return {
            name: self.value(resource)
            for name, resource in self.template["Resources"].items()
            if "Condition" not in resource or self.condition(resource["Condition"])
        }

    def nested(self) -> dict[str, "Rendered"]:
        """Logical id → each nested stack this one creates from a local template, rendered."""
        created = self.own_resources()
        return {
            name: Rendered(created[name]["Properties"].get("Parameters", {}), self.values["AWS::Region"], str(path))
            for name, path in nested_templates(ROOT / self.path).items()
            if "/" not in name and name in created
        }

    def broken_rules(self) -> set[str]:
        """The rules of this stack and its nested stacks whose condition holds and an assertion fails."""
        own = {
            name
            for name, rule in self.template.get("Rules", {}).items()
            if self.value(rule.get("RuleCondition", True))
            and not all(self.value(assertion["Assert"]) for assertion in rule["Assertions"])
        }
        return own | {f"{stack}/{rule}" for stack, nested in self.nested().items() for rule in nested.broken_rules()}

    def resources(self) -> dict[str, Any]:
        """The resources this stack and its nested stacks create, rendered (no two share an id)."""
        resources = self.own_resources()
        for stack in self.nested().values():
            inner = stack.resources()
            assert not set(inner) & set(resources), set(inner) & set(resources)
            resources |= inner
        return resources


NO_VALUE = object()
DOMAIN = {"DomainName": "sho.rt", "CertificateArn": CERTIFICATE, "HostedZoneId": "Z0123456789ABC"}
THREE_REGIONS = {"Regions": "eu-central-1,us-east-1,ap-southeast-1", "HomeRegion": "eu-central-1"}
STREAM = "arn:aws:dynamodb:us-east-1:123456789012:table/shortlink-prod-ClickStatsTable/stream/2026-12-01T00:00:00.000"


def test_one_region_renders_its_tables_and_dns_as_before():
    resources = Rendered(DOMAIN).resources()
    assert resources["LinksTable"]["Properties"]["Replicas"] == [
        {"Region": "us-east-1", "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": True}}
    ]
    # A simple alias record, no health check, no latency routing
    record = resources["ShortDomainRecordIpv4"]["Properties"]
    assert not {"SetIdentifier", "Region", "HealthCheckId"} & set(record)
    assert "ApiHealthCheck" not in resources


def test_the_home_region_creates_a_replica_in_every_region_and_the_others_create_no_table():
    home = Rendered({**DOMAIN, **THREE_REGIONS}, region="eu-central-1").resources()
    for name in GLOBAL_TABLES:
        regions = [replica["Region"] for replica in home[name]["Properties"]["Replicas"]]
        assert regions == ["eu-central-1", "us-east-1", "ap-southeast-1"], name
    other = Rendered({**DOMAIN, **THREE_REGIONS, "ClickStatsStreamArn": STREAM}, region="us-east-1").resources()
    assert not set(GLOBAL_TABLES) & set(other)
    (event,) = other["AccountStatsFunction"]["Properties"]["Events"].values()
    assert event["Properties"]["Stream"] == STREAM


@pytest.mark.parametrize("region", ["eu-central-1", "us-east-1", "ap-southeast-1"])
def test_each_region_answers_for_the_domain_by_latency_while_its_health_check_passes(region):
    resources = Rendered({**DOMAIN, **THREE_REGIONS, "ClickStatsStreamArn": STREAM}, region=region).resources()
    # Its own regional API domain (its own certificate) under the one short domain
    assert resources["ShortDomain"]["Properties"]["DomainName"] == "sho.rt"
    for record in ("ShortDomainRecordIpv4", "ShortDomainRecordIpv6"):
        properties = resources[record]["Properties"]
        assert (properties["SetIdentifier"], properties["Region"]) == (region, region)
        assert properties["HealthCheckId"] == {"Ref": "ApiHealthCheck"}
    check = resources["ApiHealthCheck"]["Properties"]["HealthCheckConfig"]
    assert (check["Type"], check["ResourcePath"], check["FailureThreshold"]) == ("HTTPS", "/robots.txt", 3)
    # The API's own host, the Edge stack told the API's id
    assert check["FullyQualifiedDomainName"] == {"Fn::Sub": "${ApiId}.execute-api.${AWS::Region}.${AWS::URLSuffix}"}
    assert resources["Edge"]["Properties"]["Parameters"]["ApiId"] == {"Ref": "ShortlinkApi"}


def test_behind_the_edge_one_distribution_reaches_the_nearest_healthy_region():
    edge = {
        **DOMAIN,
        **THREE_REGIONS,
        "EnableEdge": "true",
        "EdgeOriginDomain": "origin.sho.rt",
        "OriginCertificateArn": CERTIFICATE,
        "ClickStatsStreamArn": STREAM,
    }
    home = Rendered(edge, region="eu-central-1").resources()
    [origin] = home["EdgeDistribution"]["Properties"]["DistributionConfig"]["Origins"]
    assert origin["DomainName"] == "origin.sho.rt"
    assert {"EdgeDomainRecordIpv4", "EdgeDomainRecordIpv6", "EdgeRedirectCachePolicy"} <= set(home)
    for region in ("eu-central-1", "us-east-1", "ap-southeast-1"):
        resources = Rendered(edge, region=region).resources()
        # Every region: its API under the origin's name, in the latency record, health-checked
        assert resources["OriginDomain"]["Properties"]["DomainName"] == "origin.sho.rt"
        record = resources["OriginRecord"]["Properties"]
        assert (record["Name"], record["SetIdentifier"], record["Region"]) == ("origin.sho.rt", region, region)
        assert record["HealthCheckId"] == {"Ref": "ApiHealthCheck"}
        # and the edge's secret, the same value in every region (make secrets)
        rendered = Rendered(edge, region=region)
        variables = rendered.value(rendered.template["Globals"]["Function"]["Environment"]["Variables"])
        assert variables["EDGE_SECRET"] == "{{resolve:ssm:/shortlink/edge-secret}}"
        # the domain is CloudFront's alias, on no region's API
        assert "ShortDomain" not in resources
        # and no link may point at the origin's name (a loop through the edge)
        [_, names] = resources["OwnHostsParameter"]["Properties"]["Value"]["Fn::Sub"]
        assert names == {"Origin": ",origin.sho.rt"}
        if region != "eu-central-1":
            assert not {"EdgeDistribution", "EdgeDomainRecordIpv4", "EdgeRedirectCachePolicy"} & set(resources)


def test_one_dashboard_shows_every_region_side_by_side_and_slow_replication_alarms():
    names = {"StackName": "shortlink-global", "LinksTable": "shortlink-global-LinksTable"}
    regions = ["eu-central-1", "us-east-1", "ap-southeast-1"]
    parameters = {**names, "Regions": ",".join(regions), "HomeRegion": "eu-central-1"}
    home = Rendered(parameters, region="eu-central-1", path="monitoring.yaml").resources()
    # Drawn once, by the home region (dashboards are global to the account)
    body = json.loads(home["RegionsDashboard"]["Properties"]["DashboardBody"])
    assert home["RegionsDashboard"]["Properties"]["DashboardName"] == "shortlink-global-regions"
    for other in ("us-east-1", "ap-southeast-1"):
        assert "RegionsDashboard" not in Rendered(parameters, region=other, path="monitoring.yaml").resources()
    widgets: dict[str, list[dict[str, Any]]] = {}
    for widget in body["widgets"]:
        widgets.setdefault(widget["properties"]["region"], []).append(widget)
    assert list(widgets) == regions
    for region, column in widgets.items():
        # A column per region, side by side, each widget querying its own region
        assert len({widget["x"] for widget in column}) == 1
        titles = [widget["properties"]["title"] for widget in column]
        assert all(title.startswith(f"{region}: ") for title in titles)
        text = json.dumps(column)
        for shown in ("CacheHits", "CacheMisses", "ClickLagSeconds", "ReplicationLatency", "Errors"):
            assert shown in text, (region, shown)
        assert "shortlink-global" in text
        assert 'TableName=\\"shortlink-global-LinksTable\\"' in text
    assert len({(widget["x"], widget["y"]) for widget in body["widgets"]}) == len(body["widgets"])
    # Every region alarms on the links table's replication latency to each region
    alarm = Rendered(parameters, region="us-east-1", path="monitoring.yaml").resources()["ReplicationLatencyAlarm"]
    metrics = [metric for metric in alarm["Properties"]["Metrics"] if "MetricStat" in metric]
    receiving = [dict((d["Name"], d["Value"]) for d in m["MetricStat"]["Metric"]["Dimensions"]) for m in metrics]
    assert receiving == [{"TableName": "shortlink-global-LinksTable", "ReceivingRegion": r} for r in regions]
    assert alarm["Properties"]["Threshold"] == 30000  # ms: the links' cache time to live, 30 s by default
    # One region: neither
    single = Rendered(names, region="us-east-1", path="monitoring.yaml").resources()
    assert not {"RegionsDashboard", "ReplicationLatencyAlarm"} & set(single)


def test_the_upgrade_takes_the_tables_out_of_the_stack_by_name_then_imports_them_as_global_tables():
    # Step 2 of the upgrade (docs/regions.md): the retained tables leave the stack while every
    # function keeps using them, by the names CloudFormation generated for them
    adopted = {"TableNamePrefix": "shortlink-prod-", "ClickStatsStreamArn": STREAM}
    adopted |= {f"{name}Suffix": f"-{name.upper()[:4]}1QX7" for name in GLOBAL_TABLES}
    detached = Rendered({**adopted, "TablesInStack": "false"}).resources()
    assert not set(GLOBAL_TABLES) & set(detached)
    variables = detached["CreateFunction"]["Properties"]["Environment"]["Variables"]
    assert variables["LINKS_TABLE"] == "shortlink-prod-LinksTable-LINK1QX7"
    assert variables["IDEMPOTENCY_TABLE"] == "shortlink-prod-IdempotencyTable-IDEM1QX7"
    (event,) = detached["AccountStatsFunction"]["Properties"]["Events"].values()
    assert event["Properties"]["Stream"] == STREAM
    # Step 3: imported under the same logical ids and names, as one-replica global tables, with
    # nothing else changed (an import changes no other resource)
    imported = Rendered(adopted).resources()
    assert {name: r for name, r in imported.items() if name not in GLOBAL_TABLES} == detached
    for name in GLOBAL_TABLES:
        assert imported[name]["Properties"]["TableName"] == f"shortlink-prod-{name}-{name.upper()[:4]}1QX7"
        assert [replica["Region"] for replica in imported[name]["Properties"]["Replicas"]] == ["us-east-1"]
    assert imported["CreateFunction"]["Properties"]["Environment"]["Variables"] == variables


def test_a_promoted_home_region_leaves_the_distribution_in_the_stack_that_has_it():
    promoted = {
        **DOMAIN,
        "Regions": "eu-central-1,us-east-1,ap-southeast-1",
        "HomeRegion": "us-east-1",
        "EdgeStackRegion": "eu-central-1",
        "EnableEdge": "true",
        "EdgeOriginDomain": "origin.sho.rt",
        "OriginCertificateArn": CERTIFICATE,
        "ClickStatsStreamArn": STREAM,
    }
    old_home = Rendered(promoted, region="eu-central-1").resources()
    new_home = Rendered(promoted, region="us-east-1").resources()
    assert "EdgeDistribution" in old_home
    assert "EdgeDistribution" not in new_home
    assert set(GLOBAL_TABLES) <= set(new_home)
    assert not set(GLOBAL_TABLES) & set(old_home)


def test_every_route_gets_the_payload_format_2_0_by_sams_default_without_saying_it():
    paths = deployed_template()["Resources"]["ShortlinkApi"]["Properties"]["Body"]["paths"]
    integrations = [
        operation["x-amazon-apigateway-integration"] for path in paths.values() for operation in path.values()
    ]
    # 37 + the five SCIM methods + the four QR style ones + the nine team ones + the four domain ones
    assert len(integrations) == 59
    assert {integration["payloadFormatVersion"] for integration in integrations} == {"2.0"}
    assert "PayloadFormatVersion" not in (ROOT / "template.yaml").read_text()


def test_the_template_sam_sends_to_cloudformation_has_its_shared_parts_written_out():
    # The replicas and the API behaviours are written once (a YAML anchor, a merge key); `sam
    # deploy` packages the template with SAM CLI's own YAML, which writes each copy out in full.
    from samcli.yamlhelper import yaml_dump

    packaged = {path.name: yaml_dump(yaml_parse(path.read_text())) for path in TEMPLATES}
    for text in packaged.values():
        assert "<<" not in text
        assert not re.search(r"(^|\s)[&*][A-Za-z]", text)
    resources = yaml_parse(packaged["template.yaml"])["Resources"]
    distribution = yaml_parse(packaged[EDGE])["Resources"]["EdgeDistribution"]
    behaviours = distribution["Properties"]["DistributionConfig"]["CacheBehaviors"]
    assert [behaviour["PathPattern"] for behaviour in behaviours] == [
        "/links",
        "/links/*",
        "/keys",
        "/keys/*",
        "/stats",
        "/webhooks",
        "/webhooks/*",
        "/people/*",
        "/audit",
        "/members",
        "/members/*",
        "/invitations",
        "/invitations/*",
        "/workspace",
        "/workspaces",
        "/domains",
        "/domains/*",
        "/clicks/*",
        "/scim/*",
        "/console",
        "/console/*",
        "/unlock/*",
    ]
    for behaviour in behaviours:
        assert {key: value for key, value in behaviour.items() if key != "PathPattern"} == {
            key: value for key, value in behaviours[0].items() if key != "PathPattern"
        }
        assert behaviour["CachePolicyId"] == "4135ea2d-6df8-44a3-9df3-4b5a84be39ad"
    for name in GLOBAL_TABLES:
        assert len(resources[name]["Properties"]["Replicas"]) == 5, name


def broken_rules(parameters: dict[str, str], region: str) -> set[str]:
    """The rules a deploy with these parameters in this region would fail: the template's, and
    those of the nested stacks it creates (`Edge/...`, checked only as CloudFormation gets to them)."""
    return Rendered(parameters, region=region).broken_rules()


@pytest.mark.parametrize(
    ("parameters", "region", "broken"),
    [
        ({}, "us-east-1", set()),
        (THREE_REGIONS, "eu-central-1", set()),
        (THREE_REGIONS, "us-east-1", {"StreamOutsideTheHomeRegion"}),
        ({**THREE_REGIONS, "ClickStatsStreamArn": STREAM}, "us-east-1", set()),
        ({"HomeRegion": "eu-central-1"}, "eu-central-1", {"HomeOfSeveralRegions"}),
        ({"TablesInStack": "false"}, "us-east-1", {"StreamOutsideTheHomeRegion"}),
        ({**DOMAIN, **THREE_REGIONS, "EnableEdge": "true"}, "eu-central-1", {"OriginOfSeveralRegions"}),
        (
            {**DOMAIN, **THREE_REGIONS, "EnableEdge": "true", "EdgeOriginDomain": "origin.sho.rt"},
            "eu-central-1",
            {"OriginOfSeveralRegions"},  # its certificate is missing
        ),
        (
            {
                **DOMAIN,
                **THREE_REGIONS,
                "EnableEdge": "true",
                "EdgeOriginDomain": "origin.sho.rt",
                "OriginCertificateArn": CERTIFICATE,
            },
            "eu-central-1",
            set(),
        ),
    ],
)
def test_a_deployment_of_several_regions_is_refused_before_it_starts_when_it_lacks_what_it_needs(
    parameters, region, broken
):
    assert broken_rules(parameters, region) == broken


WEB_ACL = "arn:aws:wafv2:us-east-1:123456789012:global/webacl/x/1"
# The last commit whose template.yaml held the edge, its domains and DNS itself.
BEFORE_THE_EDGE_STACK = "f46a3ed"
# Added to edge.yaml after the move, with the edge tier (EnableEdgeTier, off by default; docs/edge.md).
EDGE_TIER_RESOURCES = {
    "EdgeKeyValueStore",
    "EdgeRedirectFunction",
    "EdgeLogStream",
    "EdgeLogRole",
    "EdgeRealtimeLogConfig",
}
EDGE_WITH_REGIONS = {
    **DOMAIN,
    **THREE_REGIONS,
    "EnableEdge": "true",
    "EdgeOriginDomain": "origin.sho.rt",
    "OriginCertificateArn": CERTIFICATE,
    "ClickStatsStreamArn": STREAM,
}


def as_written_before(node: Any) -> Any:
    """A rendered value of edge.yaml in the main template's words: the API by its logical id."""
    text = json.dumps(node).replace("${ApiId}", "${ShortlinkApi}")
    return json.loads(text)


@pytest.mark.parametrize(
    ("parameters", "region"),
    [
        ({}, "us-east-1"),
        ({"EnableEdge": "true"}, "us-east-1"),
        (DOMAIN, "us-east-1"),
        ({**DOMAIN, "Domains": "sho.rt,go.example,third.example"}, "us-east-1"),
        ({**DOMAIN, "Domains": "sho.rt,go.example", "EnableEdge": "true", "WebAclArn": WEB_ACL}, "us-east-1"),
        ({**DOMAIN, **THREE_REGIONS, "ClickStatsStreamArn": STREAM}, "eu-central-1"),
        ({**DOMAIN, **THREE_REGIONS, "ClickStatsStreamArn": STREAM}, "ap-southeast-1"),
        (EDGE_WITH_REGIONS, "eu-central-1"),
        (EDGE_WITH_REGIONS, "us-east-1"),
        ({**EDGE_WITH_REGIONS, "HomeRegion": "us-east-1", "EdgeStackRegion": "eu-central-1"}, "eu-central-1"),
        ({**EDGE_WITH_REGIONS, "HomeRegion": "us-east-1", "EdgeStackRegion": "eu-central-1"}, "us-east-1"),
        (THREE_REGIONS, "eu-central-1"),
    ],
)
def test_the_edge_stack_creates_what_the_main_template_created_before_with_the_same_properties(parameters, region):
    # Given the template before the edge had a stack of its own, and each of its resources now in edge.yaml
    before = Rendered({**parameters, "AWS::StackName": "shortlink-global"}, region=region)
    before.template = yaml_parse(subprocess_text("git", "show", f"{BEFORE_THE_EDGE_STACK}:template.yaml"))
    moved = set(read(EDGE)["Resources"]) - EDGE_TIER_RESOURCES
    assert moved <= set(before.template["Resources"])
    # When both are rendered for the same deployment in the same region
    after = Rendered({**parameters, "AWS::StackName": "shortlink-global"}, region=region).resources()
    old = {name: resource for name, resource in before.own_resources().items() if name in moved}
    new = {name: as_written_before(resource) for name, resource in after.items() if name in moved}
    # Then the same resources exist, with the same properties (their names included)
    assert set(new) == set(old)
    for name in old:
        assert new[name]["Type"] == old[name]["Type"], name
        assert contained(old[name]["Properties"], new[name]["Properties"]), name


def contained(before: Any, after: Any) -> bool:
    """Whether `after` holds all of `before` unchanged: the same scalars, every key of a mapping,
    every item of a list in the same order; what was added beside them does not count."""
    if isinstance(before, dict):
        return isinstance(after, dict) and all(key in after and contained(before[key], after[key]) for key in before)
    if isinstance(before, list):
        if not isinstance(after, list):
            return False
        remaining = iter(after)
        return all(any(contained(item, candidate) for candidate in remaining) for item in before)
    return bool(before == after)


@pytest.mark.parametrize("parameters", [{}, EDGE_WITH_REGIONS])
def test_what_stayed_in_the_main_template_deploys_as_before(parameters):
    # Given the main template before the edge had a stack of its own (its functions written out
    # in full, before Globals took their handler and tracing and YAML anchors their shared parts)
    before = deployed_template(parameters, subprocess_text("git", "show", f"{BEFORE_THE_EDGE_STACK}:template.yaml"))
    after = deployed_template(parameters)
    moved = set(read(EDGE)["Resources"])
    # Then every resource but those moved to the edge stack is sent to CloudFormation as it was
    # (what later changes added beside it aside, and descriptions, which replace nothing), under
    # its logical id: no table or queue is replaced
    for name, resource in before["Resources"].items():
        if name not in moved:
            assert contained(undescribed(resource), after["Resources"].get(name)), name
    assert {"AWS::DynamoDB::GlobalTable", "AWS::SQS::Queue"} <= {
        before["Resources"][name]["Type"] for name in before["Resources"]
    }
    assert not moved & {name for name, r in before["Resources"].items() if r["Type"] in STATEFUL_TYPES}
    # and so are the parameters (the tables' suffixes share one description now), the rules a
    # deploy is checked against and the outputs
    for name, parameter in before["Parameters"].items():
        assert contained({k: v for k, v in parameter.items() if k != "Description"}, after["Parameters"][name]), name
    assert contained(before["Rules"], after["Rules"])
    assert set(before["Outputs"]) <= set(after["Outputs"])


def undescribed(resource: dict[str, Any]) -> dict[str, Any]:
    """`resource` without its description (a function's may say more as it learns routes)."""
    properties = {key: value for key, value in resource.get("Properties", {}).items() if key != "Description"}
    return {**resource, "Properties": properties}


# What a nested stack must never take from the main template: replacing it would lose its data.
STATEFUL_TYPES = {"AWS::DynamoDB::GlobalTable", "AWS::DynamoDB::Table", "AWS::SQS::Queue", "AWS::Logs::LogGroup"}


def test_every_parameter_whose_description_was_shortened_is_explained_on_the_deploy_page():
    # The template says each in one line since the edge has a stack of its own; the deploy page's
    # table is where they are explained (those added since may be explained on their own pages).
    before = yaml_parse(subprocess_text("git", "show", f"{BEFORE_THE_EDGE_STACK}:template.yaml"))["Parameters"]
    page = (ROOT / "docs" / "deploy.md").read_text()
    table = page[page.index("| parameter |") : page.index("### Each function's settings")]
    named = set(re.findall(r"`([A-Za-z0-9<>]+)`", table))
    for name in before:
        assert name in named or (name.endswith("TableSuffix") and "<Table>Suffix" in named), name


def test_api_gateways_jwt_authorizer_guards_the_route_only_people_call_and_no_keyed_one():
    body = deployed_template()["Resources"]["ShortlinkApi"]["Properties"]["Body"]
    guarded = {
        (method.upper(), path) for path, operations in body["paths"].items() for method, operation in operations.items()
        if operation.get("security")
    }  # fmt: skip
    # Keys reach every other route as before: an authorizer there would refuse them at the gateway
    assert guarded == {("GET", "/people/me"), ("POST", "/workspaces")}
    authorizer = body["components"]["securitySchemes"]["PeopleJwt"]["x-amazon-apigateway-authorizer"]
    assert authorizer["type"] == "jwt"
    assert authorizer["identitySource"] == "$request.header.Authorization"
    audience = authorizer["jwtConfiguration"]["audience"]
    assert audience == [
        {
            "Fn::If": [
                "OwnsUserPool",
                {"Fn::GetAtt": ["People", "Outputs.ConsoleClientId"]},
                {"Ref": "ExistingUserPoolClientId"},
            ]
        }
    ]
    issuer = authorizer["jwtConfiguration"]["issuer"]
    assert "cognito-idp.${AWS::Region}.amazonaws.com/${People.Outputs.UserPoolId}" in json.dumps(issuer)


@pytest.mark.parametrize(
    ("overrides", "relying_party"),
    [
        ({}, ""),
        ({"PublicBaseUrl": "https://go.example"}, ""),
        ({"DomainName": "sho.rt", "CertificateArn": CERTIFICATE}, "sho.rt"),
        ({"Domains": "go.example,sho.rt", "CertificateArn": CERTIFICATE}, "go.example"),
    ],
)
def test_passkeys_are_on_with_a_domain_the_first_one_their_relying_party(overrides, relying_party):
    stacks, _ = SamLocalStackProvider.get_stacks(str(ROOT / "template.yaml"), parameter_overrides=overrides)
    [people] = [stack for stack in stacks if stack.stack_path == "People"]
    assert people.parameters["PasskeyDomain"] == relying_party
    # The console is told the pool's relying party (empty: passkeys off) as its pool and client
    told = stacks[0].template_dict["Globals"]["Function"]["Environment"]["Variables"]
    assert told["PEOPLE_PASSKEY_RELYING_PARTY"] == {
        "Fn::If": ["OwnsUserPool", {"Fn::GetAtt": ["People", "Outputs.PasskeyRelyingPartyId"]}, ""]
    }


def test_people_yamls_passkey_settings_all_hang_on_the_domain():
    people = yaml_parse((ROOT / "people.yaml").read_text())
    assert people["Conditions"]["Passkeys"] == {"Fn::Not": [{"Fn::Equals": [{"Ref": "PasskeyDomain"}, ""]}]}
    pool, off = people["Resources"]["UserPool"]["Properties"], {"Ref": "AWS::NoValue"}
    assert pool["UserPoolTier"] == {"Fn::If": ["Passkeys", "ESSENTIALS", off]}
    assert pool["WebAuthnRelyingPartyID"] == {"Fn::If": ["Passkeys", {"Ref": "PasskeyDomain"}, off]}
    assert pool["WebAuthnUserVerification"] == {"Fn::If": ["Passkeys", "required", off]}
    assert pool["Policies"]["SignInPolicy"] == {
        "Fn::If": ["Passkeys", {"AllowedFirstAuthFactors": ["PASSWORD", "WEB_AUTHN"]}, off]
    }
    flows = people["Resources"]["ConsoleClient"]["Properties"]["ExplicitAuthFlows"]
    assert flows == [
        "ALLOW_USER_PASSWORD_AUTH",
        "ALLOW_REFRESH_TOKEN_AUTH",
        {"Fn::If": ["Passkeys", "ALLOW_USER_AUTH", off]},
    ]
