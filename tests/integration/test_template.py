"""template.yaml is the single source of truth: lint it and check what it promises."""

import fnmatch
import json
import os
import re
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

from shortlink.config import FUNCTION_SETTINGS
from shortlink.links.slugs import RESERVED_SLUGS
from shortlink.redirect.edge import EDGE_SECRET_HEADER
from tools import secrets as secrets_command
from tools.devstack.template import LocalTemplate

ROOT = Path(__file__).resolve().parents[2]


class NoManagedPolicies:
    """SAM's policy loader, for a template that names no managed policy."""

    def load(self) -> dict[str, str]:
        return {}


def test_cfn_lint_finds_nothing():
    matches = cfnlint.api.lint_file(ROOT / "template.yaml")
    assert [str(match) for match in matches] == []


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
            {"dynamodb:GetItem", "dynamodb:UpdateItem", "dynamodb:Query", "sqs:SendMessage", "ssm:GetParameter"},
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
            {"dynamodb:GetItem", "dynamodb:UpdateItem", "dynamodb:Query", "ssm:GetParameter", "sqs:SendMessage"},
        ),
        ("IngestFunction", {"dynamodb:UpdateItem", "dynamodb:GetItem", "dynamodb:PutItem", "sqs:SendMessage"}),
        ("AccountStatsFunction", {"dynamodb:UpdateItem", "dynamodb:GetItem", "dynamodb:PutItem"}),
        (
            "WebhookEndpointsFunction",
            {"dynamodb:GetItem", "dynamodb:Query", "dynamodb:PutItem", "dynamodb:DeleteItem", "ssm:GetParameter"},
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
        ("KeysFunction", {"dynamodb:GetItem", "dynamodb:UpdateItem", "dynamodb:PutItem", "dynamodb:Scan"}),
        (
            "TransferFunction",
            {
                "dynamodb:GetItem",
                "dynamodb:PutItem",
                "dynamodb:UpdateItem",
                "dynamodb:BatchGetItem",
                "dynamodb:Query",
                "ssm:GetParameter",
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
                "ssm:GetParameter",
            },
        ),
    ],
)
def test_each_function_may_do_only_what_it_needs(template, function, actions):
    assert policy_actions(template, function) == actions


def test_create_deletes_only_its_own_idempotency_records(template):
    properties = template.stacks[0].template_dict["Resources"]["CreateFunction"]["Properties"]
    statements = [statement for policy in properties["Policies"] for statement in policy["Statement"]]
    deleting = [statement for statement in statements if "dynamodb:DeleteItem" in statement["Action"]]
    assert [statement["Resource"] for statement in deleting] == [{"Fn::GetAtt": ["IdempotencyTable", "Arn"]}]


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
        "TransferFunction",
        "ConsoleFunction",
        "AccountStatsFunction",
    }
    for function in template.functions.values():
        module, _, _ = (function.handler or "").rpartition(".")
        assert (ROOT / (function.codeuri or "") / f"{module}.py").is_file()
        assert function.runtime == "python3.13"
        assert [layer.name for layer in function.layers] == ["CommonLayer"]


def test_routes_and_trigger(template):
    routes = {(method, route.path): route.function_name for route in template.api().routes for method in route.methods}
    assert routes == {
        ("POST", "/links"): "CreateFunction",
        ("POST", "/links/bulk"): "CreateFunction",
        ("GET", "/{code}"): "RedirectFunction",
        ("HEAD", "/{code}"): "RedirectFunction",
        ("POST", "/{code}"): "RedirectFunction",
        ("GET", "/robots.txt"): "RedirectFunction",
        ("GET", "/"): "RedirectFunction",
        ("GET", "/.well-known/{file}"): "RedirectFunction",
        ("GET", "/links/{code}/stats"): "ManageFunction",
        ("GET", "/stats"): "ManageFunction",
        ("GET", "/links"): "ManageFunction",
        ("GET", "/links/{code}"): "ManageFunction",
        ("PATCH", "/links/{code}"): "ManageFunction",
        ("DELETE", "/links/{code}"): "ManageFunction",
        ("POST", "/links/{code}/restore"): "ManageFunction",
        ("GET", "/links/{code}/qr"): "ManageFunction",
        ("GET", "/openapi.json"): "DocsFunction",
        ("GET", "/docs"): "DocsFunction",
        ("POST", "/webhooks"): "WebhookEndpointsFunction",
        ("GET", "/webhooks"): "WebhookEndpointsFunction",
        ("DELETE", "/webhooks/{endpoint_id}"): "WebhookEndpointsFunction",
        ("POST", "/keys"): "KeysFunction",
        ("GET", "/keys"): "KeysFunction",
        ("DELETE", "/keys/{key_id}"): "KeysFunction",
        ("POST", "/links/import"): "TransferFunction",
        ("GET", "/links/export"): "TransferFunction",
        ("GET", "/console"): "ConsoleFunction",
        ("GET", "/console/{proxy+}"): "ConsoleFunction",
        ("POST", "/console/{proxy+}"): "ConsoleFunction",
    }
    triggers = {(t.function_name, t.queue_id, t.reports_item_failures) for t in template.sqs_triggers()}
    assert triggers == {("IngestFunction", "ClicksQueue", True), ("WebhooksFunction", "WebhookDeliveryQueue", True)}
    # The stream aggregator: in order per shard, a failed batch retried whole, the shard's id in
    # its events (a tumbling window), the table's stream with both images.
    [stream] = template.stream_triggers()
    assert (stream.function_name, stream.table_id) == ("AccountStatsFunction", "ClickStatsTable")
    (event,) = template.functions["AccountStatsFunction"].events.values()
    properties = event["Properties"]
    assert (properties["ParallelizationFactor"], properties["BisectBatchOnFunctionError"]) == (1, False)
    assert properties["TumblingWindowInSeconds"] > 0
    stats_table = template.resources("AWS::DynamoDB::Table")["ClickStatsTable"]
    assert stats_table["StreamSpecification"] == {"StreamViewType": "NEW_AND_OLD_IMAGES"}


def test_webhook_deliveries_are_dead_lettered_after_their_last_attempt_and_loopback_is_never_deployed(template):
    from shortlink.webhooks.model import MAX_ATTEMPTS, RETRY_DELAYS_SECONDS

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
    functions = list(SamFunctionProvider(stacks).get_all())
    assert functions
    for function in functions:
        assert function.environment["Variables"]["PUBLIC_BASE_URL"] == base_url, function.name
        assert function.architectures == ["arm64"]
        expected_domains = overrides.get("Domains") or overrides.get("DomainName", "")
        assert function.environment["Variables"]["SHORT_DOMAINS"] == expected_domains, function.name


def test_an_existing_stacks_domain_stays_its_first_domain_and_the_others_are_added():
    # Upgrading DomainName=sho.rt to Domains=sho.rt,go.example: ShortDomain keeps its name (no
    # replacement), the second domain is a resource of its own, with the edge all are aliases.
    single = SamLocalStackProvider.get_stacks(
        str(ROOT / "template.yaml"), parameter_overrides={"DomainName": "sho.rt", "CertificateArn": CERTIFICATE}
    )[0][0]
    several = SamLocalStackProvider.get_stacks(
        str(ROOT / "template.yaml"),
        parameter_overrides={"Domains": "sho.rt,go.example", "CertificateArn": CERTIFICATE},
    )[0][0]
    for stack in (single, several):
        assert stack.resources["ShortDomain"]["Properties"]["DomainName"] == "sho.rt"
    assert several.resources["SecondShortDomain"]["Properties"]["DomainName"] == "go.example"
    template = yaml_parse((ROOT / "template.yaml").read_text())
    resources, conditions = template["Resources"], template["Conditions"]
    assert resources["SecondShortDomain"]["Condition"] == "SecondDomainOnApi"
    assert resources["ThirdShortDomain"]["Condition"] == "ThirdDomainOnApi"
    assert resources["EdgeHostFunction"]["Condition"] == "EdgeServesSeveralDomains"
    assert conditions["EdgeServesSeveralDomains"] == {
        "Fn::And": [{"Condition": "HasSecondDomain"}, {"Condition": "EdgeEnabled"}]
    }
    # The edge's function copies the viewer's Host into the header the redirect reads
    code = resources["EdgeHostFunction"]["Properties"]["FunctionCode"]
    assert "request.headers['x-shortlink-host'] = {value: host}" in code
    # On every behaviour: the API's requests need the domain as the redirects do
    distribution = resources["EdgeDistribution"]["Properties"]["DistributionConfig"]
    behaviours = [distribution["DefaultCacheBehavior"], *distribution["CacheBehaviors"]]
    assert len(behaviours) > 1
    for behaviour in behaviours:
        condition, [association], otherwise = behaviour["FunctionAssociations"]["Fn::If"]
        assert (condition, otherwise) == ("EdgeServesSeveralDomains", {"Ref": "AWS::NoValue"})
        assert association == {
            "EventType": "viewer-request",
            "FunctionARN": {"Fn::GetAtt": ["EdgeHostFunction", "FunctionMetadata.FunctionARN"]},
        }
    # Whose host is in the edge cache's key, so that the domains' cached answers stay apart
    headers = resources["EdgeRedirectCachePolicy"]["Properties"]["CachePolicyConfig"][
        "ParametersInCacheKeyAndForwardedToOrigin"
    ]["HeadersConfig"]["Fn::If"]
    assert headers == [
        "EdgeServesSeveralDomains",
        {"HeaderBehavior": "whitelist", "Headers": ["X-Shortlink-Host"]},
        {"HeaderBehavior": "none"},
    ]


LOCAL_ONLY_VARIABLES = ("AWS_ENDPOINT_URL", "PERMUTATION_KEY", "VISITOR_SALT", "CONSOLE_SESSION_SECRET")


def deployed_template(parameters: dict[str, str] | None = None) -> dict[str, Any]:
    """The CloudFormation template `sam deploy` would send (SAM's own transform, code on S3)."""
    template = yaml_parse((ROOT / "template.yaml").read_text())
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
    assert len(functions) == 11
    for function in functions:
        variables = function["Properties"]["Environment"]["Variables"]
        for name in LOCAL_ONLY_VARIABLES:
            assert variables[name] == {"Ref": "AWS::NoValue"}, name
    # sam local sets through --env-vars only what a function declares: every function declares them.
    stacks, _ = SamLocalStackProvider.get_stacks(str(ROOT / "template.yaml"))
    for function in SamFunctionProvider(stacks).get_all():
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
    named = stacks[0].resources["OwnHostsParameter"]["Properties"]["Name"]
    for function in SamFunctionProvider(stacks).get_all():
        assert function.environment["Variables"]["OWN_HOSTS_PARAMETER"] == (named if told else ""), function.name
    for function in ("CreateFunction", "ManageFunction"):
        statements = stacks[0].resources[function]["Properties"]["Policies"][0]["Statement"]
        readable = [statement["Resource"] for statement in statements if statement["Action"] == "ssm:GetParameter"]
        arns = [arn for resource in readable for arn in (resource if isinstance(resource, list) else [resource])]
        assert any(arn.endswith(f":parameter{named}") for arn in arns), function
    value = stacks[0].resources["OwnHostsParameter"]["Properties"]["Value"]
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
    template = yaml_parse((ROOT / "template.yaml").read_text())
    resources, conditions = template["Resources"], template["Conditions"]
    # Without the edge, the domain is an API Gateway domain; with it, a CloudFront alias.
    assert conditions["DomainOnApi"] == {
        "Fn::And": [{"Condition": "HasDomain"}, {"Fn::Not": [{"Condition": "EdgeEnabled"}]}]
    }
    assert conditions["DomainOnEdge"] == {"Fn::And": [{"Condition": "HasDomain"}, {"Condition": "EdgeEnabled"}]}
    assert resources["ShortDomain"]["Condition"] == "DomainOnApi"
    assert resources["ShortDomainMapping"]["Condition"] == "DomainOnApi"
    assert resources["ShortDomain"]["Properties"]["DomainNameConfigurations"][0]["SecurityPolicy"] == "TLS_1_2"
    for record in ("ShortDomainRecordIpv4", "ShortDomainRecordIpv6"):
        assert resources[record]["Condition"] == "DnsForApi"
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
    resources = yaml_parse((ROOT / "template.yaml").read_text())["Resources"]
    distribution = resources["EdgeDistribution"]
    assert distribution["Condition"] == "EdgeEnabled"
    config = distribution["Properties"]["DistributionConfig"]
    [origin] = config["Origins"]
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
    resources = yaml_parse((ROOT / "template.yaml").read_text())["Resources"]
    behaviours = resources["EdgeDistribution"]["Properties"]["DistributionConfig"]["CacheBehaviors"]
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
    for code in ("/links-2026", "/keystone", "/statsx", "/webhooks2", "/Links", "/console"):
        assert edge_behaviour_of(code, behaviours) == "default", code


def test_the_redirect_believes_viewer_headers_only_with_the_secret_cloudfront_adds():
    template = yaml_parse((ROOT / "template.yaml").read_text())
    resources = template["Resources"]
    secret = {"Fn::Sub": "{{resolve:ssm:${EdgeSecretParameter}}}"}
    # CloudFront sets the secret on every request it sends to the API...
    [origin] = resources["EdgeDistribution"]["Properties"]["DistributionConfig"]["Origins"]
    [header] = origin["OriginCustomHeaders"]
    assert (header["HeaderName"].lower(), header["HeaderValue"]) == (EDGE_SECRET_HEADER, secret)
    # ...and the redirect gets the same secret only with the edge: without it, nothing is believed
    variables = resources["RedirectFunction"]["Properties"]["Environment"]["Variables"]
    assert variables["EDGE_SECRET"] == {"Fn::If": ["EdgeEnabled", secret, ""]}
    assert "TRUST_EDGE_HEADERS" not in json.dumps(template)
    stacks, _ = SamLocalStackProvider.get_stacks(str(ROOT / "template.yaml"))
    for function in SamFunctionProvider(stacks).get_all():
        assert function.environment["Variables"].get("EDGE_SECRET", "") == "", function.name
    # The secret is kept in SSM under the name `make secrets` creates
    assert template["Parameters"]["EdgeSecretParameter"]["Default"] == secrets_command.TEMPLATE_DEFAULT_EDGE_PARAMETER


# The variable that tells a function each table or queue (shortlink.config).
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
        # Given what the template gives the function (SAM CLI resolves a !Ref to the logical id)
        variables = {
            variable: str(value)
            for variable, value in (function.environment or {}).get("Variables", {}).items()
            if value is not None and not isinstance(value, dict)  # AWS::NoValue: local only
        }
        model = FUNCTION_SETTINGS[variables["POWERTOOLS_SERVICE_NAME"]]
        services.add(variables["POWERTOOLS_SERVICE_NAME"])
        # Then its own settings model reads it without a missing variable...
        model.from_env(variables)
        # ...and the tables and queues it is told are exactly those its policy lets it use.
        policies = json.dumps(template.stacks[0].template_dict["Resources"][name]["Properties"].get("Policies", []))
        granted = {
            variable for resource, variable in RESOURCE_VARIABLES.items() if re.search(rf"\b{resource}\b", policies)
        }
        assert set(variables) & set(RESOURCE_VARIABLES.values()) == granted, name
        assert set(model.REQUIRES) <= granted, name
    assert services == set(FUNCTION_SETTINGS)
