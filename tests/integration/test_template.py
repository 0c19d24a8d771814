"""template.yaml is the single source of truth: lint it and check what it promises."""

import json
import re
from pathlib import Path

import cfnlint.api
import pytest
from samcli.lib.providers.sam_function_provider import SamFunctionProvider
from samcli.lib.providers.sam_stack_provider import SamLocalStackProvider
from samcli.yamlhelper import yaml_parse

from tools.devstack.template import LocalTemplate

ROOT = Path(__file__).resolve().parents[2]


def test_cfn_lint_finds_nothing():
    matches = cfnlint.api.lint_file(ROOT / "template.yaml")
    assert [str(match) for match in matches] == []


def policy_actions(template: LocalTemplate, function: str) -> set[str]:
    properties = template.stacks[0].template_dict["Resources"][function]["Properties"]
    actions: set[str] = set()
    for policy in properties.get("Policies", []):
        for statement in policy["Statement"]:
            found = statement["Action"]
            actions.update([found] if isinstance(found, str) else found)
    return actions


@pytest.mark.parametrize(
    ("function", "actions"),
    [
        ("RedirectFunction", {"dynamodb:GetItem", "dynamodb:UpdateItem", "sqs:SendMessage", "ssm:GetParameter"}),
        (
            "CreateFunction",
            {"dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:GetItem", "dynamodb:DeleteItem", "ssm:GetParameter"},
        ),
        ("ManageFunction", {"dynamodb:GetItem", "dynamodb:UpdateItem", "dynamodb:Query"}),
        ("IngestFunction", {"dynamodb:UpdateItem", "dynamodb:GetItem", "dynamodb:PutItem"}),
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
    assert set(template.functions) == {"CreateFunction", "RedirectFunction", "ManageFunction", "IngestFunction"}
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
        ("POST", "/{code}"): "RedirectFunction",
        ("GET", "/links/{code}/stats"): "ManageFunction",
        ("GET", "/links"): "ManageFunction",
        ("GET", "/links/{code}"): "ManageFunction",
        ("PATCH", "/links/{code}"): "ManageFunction",
        ("DELETE", "/links/{code}"): "ManageFunction",
        ("POST", "/links/{code}/restore"): "ManageFunction",
        ("GET", "/links/{code}/qr"): "ManageFunction",
    }
    [trigger] = template.sqs_triggers()
    assert (trigger.function_name, trigger.queue_id, trigger.reports_item_failures) == (
        "IngestFunction",
        "ClicksQueue",
        True,
    )


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


def test_the_access_log_is_one_json_line_on_by_default_and_optional():
    template = yaml_parse((ROOT / "template.yaml").read_text())
    resources = template["Resources"]
    assert template["Parameters"]["AccessLogs"]["Default"] == "Enabled"
    condition, enabled, disabled = resources["ShortlinkApi"]["Properties"]["AccessLogSettings"]["Fn::If"]
    assert (condition, disabled) == ("HasAccessLogs", {"Ref": "AWS::NoValue"})
    assert enabled["DestinationArn"] == {"Fn::GetAtt": ["ApiAccessLogs", "Arn"]}
    line = re.sub(r"\$context\.[A-Za-z.]+", "x", enabled["Format"])
    assert set(json.loads(line)) == {"requestId", "ip", "time", "routeKey", "path", "status", "latencyMs", "error"}
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
    [api] = config["CacheBehaviors"]
    assert api["PathPattern"] == "/links*"
    assert api["CachePolicyId"] == "4135ea2d-6df8-44a3-9df3-4b5a84be39ad"  # CachingDisabled
    assert api["OriginRequestPolicyId"] == all_viewer_except_host
    assert config["WebACLId"] == {"Fn::If": ["HasWebAcl", {"Ref": "WebAclArn"}, {"Ref": "AWS::NoValue"}]}
