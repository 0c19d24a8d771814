"""The edge tier in the templates (EnableEdgeTier): off by default, only with the edge; its
KeyValueStore and function, associated with the behaviours that need a viewer-request function;
the function's inline code is edge/viewer-request.js byte for byte, within CloudFront's size limit."""

from typing import Any

import pytest
from samcli.yamlhelper import yaml_parse

from tests.integration.test_template import CERTIFICATE, DOMAIN, ROOT, Rendered
from tools.developers.edge_function_code import FUNCTION_FILE, TEMPLATE, with_code

# CloudFront Functions' limit on a function's code (bytes).
MAX_FUNCTION_BYTES = 10 * 1024
EDGE = {"EnableEdge": "true"}
TIER = {"EnableEdge": "true", "EnableEdgeTier": "true"}
TWO_DOMAINS = {"Domains": "sho.rt,go.sho.rt", "CertificateArn": CERTIFICATE, "HostedZoneId": "Z0123456789ABC"}


def behaviours(resources: dict[str, Any]) -> tuple[Any, list[Any]]:
    config = resources["EdgeDistribution"]["Properties"]["DistributionConfig"]
    return config["DefaultCacheBehavior"].get("FunctionAssociations"), [
        behaviour.get("FunctionAssociations") for behaviour in config["CacheBehaviors"]
    ]


def viewer_request(function: str) -> list[dict[str, Any]]:
    return [{"EventType": "viewer-request", "FunctionARN": {"Fn::GetAtt": [function, "FunctionMetadata.FunctionARN"]}}]


def test_the_tier_is_off_by_default_and_needs_the_edge():
    assert not {"EdgeKeyValueStore", "EdgeRedirectFunction"} & set(Rendered(EDGE).resources())
    assert Rendered({"EnableEdgeTier": "true"}).broken_rules() == {"EdgeTierNeedsTheEdge"}
    assert Rendered(TIER).broken_rules() == set()


@pytest.mark.parametrize("domains", [{}, DOMAIN, TWO_DOMAINS])
def test_with_the_tier_its_function_reads_the_store_and_answers_on_the_default_behaviour(domains):
    resources = Rendered({**TIER, **domains}).resources()
    function = resources["EdgeRedirectFunction"]["Properties"]
    assert function["FunctionConfig"]["Runtime"] == "cloudfront-js-2.0"
    assert function["FunctionConfig"]["KeyValueStoreAssociations"] == [
        {"KeyValueStoreARN": {"Fn::GetAtt": ["EdgeKeyValueStore", "Arn"]}}
    ]
    assert function["AutoPublish"] is True
    default, api = behaviours(resources)
    assert default == viewer_request("EdgeRedirectFunction")
    # It names the viewer's host as EdgeHostFunction did, which it replaces
    assert "EdgeHostFunction" not in resources
    several = domains is TWO_DOMAINS
    assert api == [viewer_request("EdgeRedirectFunction") if several else None] * len(api)


def test_without_the_tier_several_domains_keep_the_host_function():
    resources = Rendered({**EDGE, **TWO_DOMAINS}).resources()
    default, api = behaviours(resources)
    assert default == viewer_request("EdgeHostFunction")
    assert api == [viewer_request("EdgeHostFunction")] * len(api)
    assert "EdgeRedirectFunction" not in resources


def test_the_inline_code_is_the_function_file_byte_for_byte_within_cloudfronts_limit():
    code = FUNCTION_FILE.read_text()
    inline = yaml_parse(TEMPLATE.read_text())["Resources"]["EdgeRedirectFunction"]["Properties"]["FunctionCode"]
    assert inline == code, (
        "edge.yaml's copy differs from edge/viewer-request.js: python -m tools.developers.edge_function_code"
    )
    assert len(code.encode()) <= MAX_FUNCTION_BYTES
    # and the tool that copies it writes back exactly what it is given
    changed = code + "// a change\n"
    rewritten = yaml_parse(with_code(TEMPLATE.read_text(), changed))["Resources"]["EdgeRedirectFunction"]
    assert rewritten["Properties"]["FunctionCode"] == changed
    assert (ROOT / "edge.yaml") == TEMPLATE
