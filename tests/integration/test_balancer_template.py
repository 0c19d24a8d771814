"""The Application Load Balancer front (template.yaml's Front, balancer.yaml): its listener rules
route what the HTTP API routes, within the load balancer's limits; it exists, with its DNS, health
checks and alarms, only when it is the front, in one region or several."""

import re
from functools import cache
from pathlib import Path
from typing import Any

import cfnlint.api
import pytest
from cfnlint.config import ManualArgs
from samcli.yamlhelper import yaml_parse

from shortlink.links.slugs import RESERVED_SLUGS
from tests.integration.test_template import CERTIFICATE, DOMAIN, STREAM, THREE_REGIONS, Rendered
from tools.developers.devstack.template import LocalTemplate

ROOT = Path(__file__).resolve().parents[2]
BALANCER = yaml_parse((ROOT / "balancer.yaml").read_text())
ON_BALANCER = {**DOMAIN, "Front": "LoadBalancer"}
WEB_ACL = "arn:aws:wafv2:us-east-1:123456789012:global/webacl/edge/0a1b2c3d"
REGIONAL_WEB_ACL = "arn:aws:wafv2:us-east-1:123456789012:regional/webacl/front/0a1b2c3d"
SEVERAL_REGIONS = {**THREE_REGIONS, "ClickStatsStreamArn": STREAM}
# A value for each path parameter of the HTTP API's routes ({proxy+} spans segments).
PARAMETER_VALUES = {"code": "Ab3xY9z", "file": "apple-app-site-association", "key_id": "k1", "endpoint_id": "e1",
                    "export_id": "x1", "proxy+": "links/Ab3xY9z/edit",
                    "subject": "s1", "invitation_id": "i1", "domain": "links.example.com"}  # fmt: skip
# The load balancer's documented quotas (Elastic Load Balancing, Application Load Balancer quotas).
MAX_RULES_PER_LISTENER = 100
MAX_CONDITION_VALUES_PER_RULE = 5
MAX_WILDCARDS_PER_RULE = 5


def path_pattern(pattern: str) -> re.Pattern[str]:
    """An ALB path pattern as it matches: case-sensitive, `*` any characters (`/` too), `?` one."""
    return re.compile("".join({"*": ".*", "?": "."}.get(c, re.escape(c)) for c in pattern) + r"\Z")


@cache
def rendered_balancer(edge_secret: str = "") -> dict[str, Any]:
    """balancer.yaml's resources as deployed, without or behind the edge (its secret)."""
    return Rendered({"EdgeSecret": edge_secret}, path="balancer.yaml").resources()


def rules(edge_secret: str = "") -> list[dict[str, Any]]:
    """The HTTPS listener's rules, in the order the load balancer tests them (by priority)."""
    found = [
        resource["Properties"]
        for resource in rendered_balancer(edge_secret).values()
        if resource["Type"] == "AWS::ElasticLoadBalancingV2::ListenerRule"
    ]
    return sorted(found, key=lambda rule: rule["Priority"])


@cache
def balancer_parameters() -> dict[str, Any]:
    """What the main template gives the Balancer stack."""
    parameters: dict[str, Any] = yaml_parse((ROOT / "template.yaml").read_text())["Resources"]["Balancer"][
        "Properties"
    ]["Parameters"]
    return parameters


def function_of_target_group(logical_id: str) -> str:
    """The main template's function a target group invokes (by the parameter it is given)."""
    [target] = BALANCER["Resources"][logical_id]["Properties"]["Targets"]
    function, attribute = balancer_parameters()[target["Id"]["Ref"]]["Fn::GetAtt"]
    assert attribute == "Arn"
    return str(function)


def holds(condition: dict[str, Any], method: str, path: str, headers: dict[str, str]) -> bool:
    """Whether a rule's condition holds for a request (header values match case-insensitively)."""
    if condition["Field"] == "http-request-method":
        return method in condition["HttpRequestMethodConfig"]["Values"]
    if condition["Field"] == "path-pattern":
        return any(path_pattern(p).match(path) for p in condition["PathPatternConfig"]["Values"])
    config = condition["HttpHeaderConfig"]
    sent = headers.get(config["HttpHeaderName"].lower(), "")
    return any(sent.lower() == value.lower() for value in config["Values"])


def routed_to(method: str, path: str, edge_secret: str = "", headers: dict[str, str] | None = None) -> str:
    """The function the load balancer invokes for a request: the first rule whose every condition
    holds, else the listener's default action ("403" for its fixed refusal)."""
    for rule in rules(edge_secret):
        if all(holds(condition, method, path, headers or {}) for condition in rule["Conditions"]):
            [action] = rule["Actions"]
            return function_of_target_group(action["TargetGroupArn"]["Ref"])
    [default] = rendered_balancer(edge_secret)["HttpsListener"]["Properties"]["DefaultActions"]
    if default["Type"] == "fixed-response":
        return str(default["FixedResponseConfig"]["StatusCode"])
    return function_of_target_group(default["TargetGroupArn"]["Ref"])


def test_every_http_api_route_reaches_the_same_function_through_the_load_balancer():
    # Given every route of the HTTP API as SAM defines it (template.yaml's HttpApi events)
    routes = LocalTemplate.load(ROOT / "template.yaml").api().routes
    checked = 0
    for route in routes:
        path = re.sub(r"\{([^}]+)\}", lambda m: PARAMETER_VALUES[m.group(1)], route.path)
        for method in route.methods:
            # Then the listener rules send a request of it to the function the API would
            assert routed_to(method, path) == route.function_name, (method, route.path)
            checked += 1
    assert checked >= 30
    # and every reserved slug the API answers itself goes to the same function as under the API
    assert routed_to("GET", "/health") == "RedirectFunction"
    assert "health" in RESERVED_SLUGS


def test_behind_the_edge_every_rule_requires_its_secret_and_nothing_else_gets_past_the_load_balancer():
    # Given the load balancer behind the edge, and each of the HTTP API's routes
    secret = "kV3-edge_secret"
    sent = {"x-shortlink-edge-secret": secret}
    for route in LocalTemplate.load(ROOT / "template.yaml").api().routes:
        path = re.sub(r"\{([^}]+)\}", lambda m: PARAMETER_VALUES[m.group(1)], route.path)
        for method in route.methods:
            # Then with the secret CloudFront adds it reaches the same function; without it, a 403
            assert routed_to(method, path, secret, sent) == route.function_name, (method, route.path)
            if (method, path) != ("GET", "/robots.txt"):  # Route 53's, below
                assert routed_to(method, path, secret, {"x-shortlink-edge-secret": "guess"}) == "403"
    # Route 53's health check, which sends no header, still reads robots.txt (nothing else)
    assert routed_to("GET", "/robots.txt", secret) == "RedirectFunction"
    assert routed_to("GET", "/Ab3xY9z", secret) == "403"


@pytest.mark.parametrize("edge_secret", ["", "kV3-edge_secret"], ids=["alone", "behind-the-edge"])
def test_the_rules_stay_within_the_load_balancers_limits(edge_secret):
    found = rules(edge_secret)
    assert len(found) <= MAX_RULES_PER_LISTENER
    assert len({rule["Priority"] for rule in found}) == len(found)
    for rule in found:
        values = [value for condition in rule["Conditions"] for value in next(
            config["Values"] for key, config in condition.items() if key.endswith("Config"))]  # fmt: skip
        assert len(values) <= MAX_CONDITION_VALUES_PER_RULE, rule
        assert sum(value.count("*") + value.count("?") for value in values) <= MAX_WILDCARDS_PER_RULE, rule


def test_the_load_balancer_is_https_with_a_tls_1_3_policy_and_http_only_redirects():
    resources = BALANCER["Resources"]
    https = resources["HttpsListener"]["Properties"]
    assert (https["Protocol"], https["Port"]) == ("HTTPS", 443)
    assert https["SslPolicy"].startswith("ELBSecurityPolicy-TLS13-")
    assert https["Certificates"] == [{"CertificateArn": {"Ref": "CertificateArn"}}]
    [redirect] = resources["HttpListener"]["Properties"]["DefaultActions"]
    assert (redirect["Type"], redirect["RedirectConfig"]["Protocol"]) == ("redirect", "HTTPS")
    attributes = {a["Key"]: a["Value"] for a in resources["LoadBalancer"]["Properties"]["LoadBalancerAttributes"][:4]}
    # The visitor's address is the one the load balancer appends, never one a client wrote
    assert attributes["routing.http.xff_header_processing.mode"] == "append"
    assert attributes["routing.http.drop_invalid_header_fields.enabled"] == "true"
    # Each target group may be invoked by the load balancer, and only after that permission exists
    groups = {n: r for n, r in resources.items() if r["Type"] == "AWS::ElasticLoadBalancingV2::TargetGroup"}
    assert len(groups) == 9
    for group in groups.values():
        permission = resources[group["DependsOn"]]["Properties"]
        assert permission["Principal"] == "elasticloadbalancing.amazonaws.com"
        assert permission["FunctionName"] == group["Properties"]["Targets"][0]["Id"]
        assert group["Properties"]["TargetType"] == "lambda"
    # Only the redirect is health-checked, on a path no link can take
    checked = [n for n, g in groups.items() if g["Properties"]["HealthCheckEnabled"]]
    assert checked == ["RedirectTargets"]
    assert BALANCER["Mappings"]["HealthCheck"]["Target"]["Path"].strip("/") in RESERVED_SLUGS


# The templates' own lint (test_template.py) weighs every condition; this lints the deployment
# with the most resources as it is deployed: the dual-stack load balancer on a network of its own
# in each of three regions; and the nested stack alone on existing subnets.
def test_cfn_lint_finds_nothing_for_the_load_balancer_in_three_regions():
    parameters = {**ON_BALANCER, **SEVERAL_REGIONS, "LoadBalancerIpv6": "true"}
    matches = cfnlint.api.lint_file(ROOT / "template.yaml", config=ManualArgs(parameters=[parameters]))
    assert [str(match) for match in matches] == []
    given = Rendered({**ON_BALANCER, **EXISTING_SUBNETS}).resources()["Balancer"]["Properties"]["Parameters"]
    nested = {name: value for name, value in given.items() if isinstance(value, str)} | {"StackName": "shortlink"}
    function = "arn:aws:lambda:us-east-1:123456789012:function:f"
    nested |= {name: function for name in given if name.endswith("FunctionArn")}
    matches = cfnlint.api.lint_file(ROOT / "balancer.yaml", config=ManualArgs(parameters=[nested]))
    assert [str(match) for match in matches] == []


BEHIND_THE_EDGE = {"EnableEdge": "true", "EdgeOriginDomain": "origin.sho.rt", "WebAclArn": WEB_ACL,
                   "LoadBalancerWebAclArn": REGIONAL_WEB_ACL}  # fmt: skip


def test_the_edge_reaches_the_load_balancer_by_a_name_of_ours_with_its_secret_and_both_web_acls():
    resources = Rendered({**ON_BALANCER, **BEHIND_THE_EDGE}, region="us-east-1").resources()
    # CloudFront's origin is the origin name, over HTTPS, with the secret the listener rules require
    [origin] = resources["EdgeDistribution"]["Properties"]["DistributionConfig"]["Origins"]
    assert origin["DomainName"] == "origin.sho.rt"
    assert origin["CustomOriginConfig"]["OriginProtocolPolicy"] == "https-only"
    [secret_header] = origin["OriginCustomHeaders"]
    secret = resources["Balancer"]["Properties"]["Parameters"]["EdgeSecret"]
    assert secret_header["HeaderValue"] == secret
    assert secret_header["HeaderName"] == "X-Shortlink-Edge-Secret"
    # which aliases the load balancer; the short domain is CloudFront's (no API domain, no A record to the balancer)
    record = resources["OriginRecord"]["Properties"]
    assert (record["Name"], record["AliasTarget"]["DNSName"]) == (
        "origin.sho.rt",
        {"Fn::GetAtt": ["Balancer", "Outputs.DNSName"]},
    )
    assert {"EdgeDomainRecordIpv4", "BalancerWebAcl"} <= set(resources)
    assert not {"ShortDomainRecordIpv4", "OriginDomain", "ShortDomain"} & set(resources)
    # WAF on both: the CloudFront-scoped ACL on the distribution, the regional one on the load balancer
    assert resources["EdgeDistribution"]["Properties"]["DistributionConfig"]["WebACLId"] == WEB_ACL
    assert resources["BalancerWebAcl"]["Properties"]["WebACLArn"] == REGIONAL_WEB_ACL
    # and the origin name is one of the stack's own hosts (no link may point at it)
    assert "origin.sho.rt" in str(resources["OwnHostsParameter"]["Properties"]["Value"])


EXISTING_SUBNETS = {
    "LoadBalancerVpcId": "vpc-0a1b2c3d4e5f60718",
    "LoadBalancerSubnetIds": "subnet-0a1b2c3d,subnet-4e5f6071",
    "LoadBalancerIpv6": "true",
}
CREATED_NETWORK = {"Network", "NetworkGateway", "PublicRoute", "FirstSubnet", "SecondSubnet", "FirstSubnetRoutes"}


def test_existing_subnets_replace_the_created_network_and_ipv6_makes_the_load_balancer_dual_stack():
    # Given existing subnets: no network is created, the load balancer and its group live in them
    existing = Rendered({**ON_BALANCER, **EXISTING_SUBNETS}).resources()
    assert not CREATED_NETWORK & set(existing)
    front = existing["LoadBalancer"]["Properties"]
    assert front["Subnets"] == ["subnet-0a1b2c3d", "subnet-4e5f6071"]
    assert existing["BalancerSecurityGroup"]["Properties"]["VpcId"] == "vpc-0a1b2c3d4e5f60718"
    # With IPv6: dual-stack, open to IPv6 on both ports, and the domain's AAAA record aliases it too
    assert front["IpAddressType"] == "dualstack"
    ipv6 = [existing[name]["Properties"] for name in ("BalancerHttpIpv6", "BalancerHttpsIpv6")]
    assert [(rule["FromPort"], rule["CidrIpv6"]) for rule in ipv6] == [(80, "::/0"), (443, "::/0")]
    alias = existing["ShortDomainRecordIpv6"]["Properties"]["AliasTarget"]
    assert alias["DNSName"] == {"Fn::GetAtt": ["Balancer", "Outputs.DNSName"]}
    # Given a network of its own and IPv6: an Amazon-provided block, a /64 per subnet and a route for ::/0
    created = Rendered({**ON_BALANCER, "LoadBalancerIpv6": "true"}).resources()
    assert CREATED_NETWORK | {"NetworkIpv6", "PublicRouteIpv6"} <= set(created)
    assert created["NetworkIpv6"]["Properties"]["AmazonProvidedIpv6CidrBlock"] is True
    for subnet in ("FirstSubnet", "SecondSubnet"):
        assert "Ipv6CidrBlock" in created[subnet]["Properties"]


def functions_outside_any_vpc(resources: dict[str, Any]) -> bool:
    functions = [r for r in resources.values() if r["Type"] == "AWS::Serverless::Function"]
    return bool(functions) and not any("VpcConfig" in f["Properties"] for f in functions)


@pytest.mark.parametrize("regions", [{}, SEVERAL_REGIONS], ids=["one", "three"])
def test_the_http_api_front_has_no_load_balancer(regions):
    resources = Rendered({**DOMAIN, **regions}, region="us-east-1").resources()
    front = {"Balancer", "LoadBalancer", "HttpsListener", "BalancerErrorAlarm"}
    assert not front & set(resources)
    assert {"ShortDomain", "ShortDomainRecordIpv4", "ApiErrorRateAlarm"} <= set(resources)
    assert resources["ShortlinkApi"]["Properties"]["DisableExecuteApiEndpoint"] is False


@pytest.mark.parametrize("regions", [{}, SEVERAL_REGIONS], ids=["one", "three"])
def test_the_load_balancer_front_takes_the_domain_the_health_checks_and_the_alarms(regions):
    rendered = Rendered({**ON_BALANCER, **regions}, region="us-east-1")
    resources = rendered.resources()
    # The load balancer, with the stack's certificate, and the functions still outside any VPC
    front = {"Balancer", "LoadBalancer", "HttpsListener", "HttpListener", "FirstSubnet", "SecondSubnet"}
    assert front <= set(resources)
    assert resources["HttpsListener"]["Properties"]["Certificates"] == [{"CertificateArn": CERTIFICATE}]
    assert functions_outside_any_vpc(resources)
    assert not {"NatGateway", "AWS::EC2::NatGateway"} & {r["Type"] for r in resources.values()}
    # The HTTP API stays (its routes are the rules' source) but no one can call it
    assert resources["ShortlinkApi"]["Properties"]["DisableExecuteApiEndpoint"] is True
    # The domain aliases the load balancer, not an API Gateway domain
    # (the API's A record updated in place, so that switching never holds two records of one name)
    assert not {"ShortDomain", "ShortDomainRecordIpv6"} & set(resources)
    assert resources["LoadBalancer"]["Properties"]["IpAddressType"] == "ipv4"  # dual-stack is LoadBalancerIpv6's
    record = resources["ShortDomainRecordIpv4"]["Properties"]
    assert record["AliasTarget"] == {
        "DNSName": {"Fn::GetAtt": ["Balancer", "Outputs.DNSName"]},
        "HostedZoneId": {"Fn::GetAtt": ["Balancer", "Outputs.CanonicalHostedZoneID"]},
    }
    if regions:
        # Several regions: a latency record per region, skipped while the load balancer fails its check
        assert (record["SetIdentifier"], record["Region"]) == ("us-east-1", "us-east-1")
        check = resources["ApiHealthCheck"]["Properties"]["HealthCheckConfig"]
        assert check["FullyQualifiedDomainName"] == {"Fn::GetAtt": ["Balancer", "Outputs.DNSName"]}
        assert check["ResourcePath"] == "/robots.txt"
    else:
        assert not {"SetIdentifier", "Region", "HealthCheckId"} & set(record)
    # Its alarms instead of the API's
    alarms = {n for n, r in resources.items() if r["Type"] == "AWS::CloudWatch::Alarm"}
    balancer_alarms = {"BalancerTargetErrorRateAlarm", "BalancerErrorAlarm", "BalancerRejectedConnectionAlarm"}
    assert balancer_alarms | {"BalancerResponseTimeAlarm"} <= alarms
    assert "ApiErrorRateAlarm" not in alarms
    # and no link may point at its own host name (a loop)
    own_hosts, origin = resources["OwnHostsParameter"]["Properties"]["Value"]["Fn::Sub"]
    assert (own_hosts.endswith(",${LoadBalancerDnsName}${Origin}"), origin) == (True, {"Origin": ""})


@pytest.mark.parametrize(
    ("parameters", "broken"),
    [
        ({"Front": "LoadBalancer"}, {"LoadBalancerNeedsADomain"}),
        ({**ON_BALANCER, "EnableEdge": "true"}, {"LoadBalancerNeedsADomain"}),
        ({**ON_BALANCER, **BEHIND_THE_EDGE}, set()),
        ({**ON_BALANCER, "LoadBalancerVpcId": EXISTING_SUBNETS["LoadBalancerVpcId"]}, {"ExistingSubnetsOfOneVpc"}),
        (ON_BALANCER, set()),
    ],
)
def test_the_load_balancer_needs_a_domain_and_behind_the_edge_an_origin_name(parameters, broken):
    assert Rendered(parameters).broken_rules() == broken
