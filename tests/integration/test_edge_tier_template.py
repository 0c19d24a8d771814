"""The edge tier's resources in the templates: the sync beside the tables and the distribution,
the real-time log stream into ingest, and per-request failover on the redirects' behaviour only."""

from pathlib import Path
from typing import Any

import cfnlint.api
import pytest
from cfnlint.config import ManualArgs

from shortlink.redirect.edge_log_clicks import LOG_FIELDS
from tests.integration.test_template import CERTIFICATE, DOMAIN, STREAM, THREE_REGIONS, Rendered

EDGE = {"EnableEdge": "true"}
TIER = {**EDGE, "EnableEdgeTier": "true"}
SEVERAL = {**TIER, **DOMAIN, **THREE_REGIONS, "EdgeOriginDomain": "origin.sho.rt", "OriginCertificateArn": CERTIFICATE}
TIER_PARTS = {"EdgeSyncFunction", "EdgeClicksMapping", "EdgeKeyValueStore", "EdgeLogStream", "EdgeRealtimeLogConfig"}
ALL_METHODS = ["GET", "HEAD", "OPTIONS", "PUT", "POST", "PATCH", "DELETE"]


def distribution(resources: dict[str, Any]) -> dict[str, Any]:
    config: dict[str, Any] = resources["EdgeDistribution"]["Properties"]["DistributionConfig"]
    return config


@pytest.mark.parametrize("parameters", [{}, EDGE, {**EDGE, **DOMAIN}])
def test_without_the_tier_nothing_of_it_exists_and_the_edge_is_as_before(parameters):
    resources = Rendered(parameters).resources()
    assert not TIER_PARTS & set(resources)
    if "EdgeDistribution" in resources:
        behaviour = distribution(resources)["DefaultCacheBehavior"]
        assert (behaviour["TargetOriginId"], behaviour["AllowedMethods"]) == ("api", ALL_METHODS)
        assert "RealtimeLogConfigArn" not in behaviour
        assert "OriginGroups" not in distribution(resources)


@pytest.mark.parametrize(("parameters", "region"), [(TIER, "us-east-1"), (SEVERAL, "eu-central-1")])
def test_the_tier_syncs_the_store_and_logs_every_request_into_ingest(parameters, region):
    resources = Rendered(parameters, region=region).resources()
    assert set(resources) >= TIER_PARTS
    sync = resources["EdgeSyncFunction"]["Properties"]
    # The links' stream, in order and retried whole, and the hourly reconciliation
    change = sync["Events"]["LinkChanges"]["Properties"]
    assert change["Stream"] == {"Fn::GetAtt": ["LinksTable", "StreamArn"]}
    assert (change["ParallelizationFactor"], change["BisectBatchOnFunctionError"]) == (1, False)
    assert sync["Events"]["Reconciliation"]["Properties"]["Schedule"] == "rate(1 hour)"
    store = {"Fn::GetAtt": ["Edge", "Outputs.EdgeKeyValueStoreArn"]}
    assert sync["Environment"]["Variables"]["EDGE_STORE_ARN"] == store
    # Every request logged, the fields in the order ingest reads them
    config = resources["EdgeRealtimeLogConfig"]["Properties"]
    assert (config["SamplingRate"], tuple(config["Fields"])) == (100, LOG_FIELDS)
    behaviour = distribution(resources)["DefaultCacheBehavior"]
    assert behaviour["RealtimeLogConfigArn"] == {"Fn::GetAtt": ["EdgeRealtimeLogConfig", "Arn"]}
    assert resources["EdgeLogStream"]["Properties"]["StreamModeDetails"] == {"StreamMode": "ON_DEMAND"}
    mapping = resources["EdgeClicksMapping"]["Properties"]
    assert mapping["FunctionName"] == {"Ref": "IngestFunction"}
    assert mapping["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
    ingest = resources["IngestFunction"]["Properties"]["Environment"]["Variables"]
    assert ingest["LINKS_TABLE"] == "LinksTable"


@pytest.mark.parametrize("region", ["us-east-1", "ap-southeast-1"])
def test_one_store_serves_the_distribution_other_regions_run_no_sync(region):
    resources = Rendered({**SEVERAL, "ClickStatsStreamArn": STREAM}, region=region).resources()
    assert not TIER_PARTS & set(resources)
    assert "EdgeClicksMapping" not in resources


def test_the_tier_and_failover_need_the_edge():
    assert "EdgeTierNeedsTheEdge" in Rendered({"EnableEdgeTier": "true"}).broken_rules()
    assert "EdgeTierNeedsTheEdge" in Rendered({"EdgeFailoverOrigin": "abc.example.com"}).broken_rules()
    assert "EdgeTierNeedsTheEdge" not in Rendered(TIER).broken_rules()


def test_failover_is_per_request_on_the_redirects_and_what_posts_keeps_the_first_origin():
    second = "a1b2c3d4e5.execute-api.eu-west-1.amazonaws.com"
    config = distribution(Rendered({**EDGE, "EdgeFailoverOrigin": second}).resources())
    primary, failover = config["Origins"]
    assert failover["DomainName"] == second
    assert (primary["ConnectionAttempts"], primary["ConnectionTimeout"]) == (1, 2)
    assert failover["OriginCustomHeaders"] == primary["OriginCustomHeaders"]
    [group] = config["OriginGroups"]["Items"]
    assert [member["OriginId"] for member in group["Members"]["Items"]] == ["api", "api-failover"]
    assert group["FailoverCriteria"]["StatusCodes"]["Items"] == [500, 502, 503, 504]
    # An origin group's behaviour may allow GET, HEAD and OPTIONS only
    default = config["DefaultCacheBehavior"]
    assert (default["TargetOriginId"], default["AllowedMethods"]) == ("api-group", ["GET", "HEAD", "OPTIONS"])
    # The API, the console's forms and a password link's unlock form post through behaviours of
    # their own, on the first origin, never cached
    by_path = {behaviour["PathPattern"]: behaviour for behaviour in config["CacheBehaviors"]}
    assert {"/links", "/keys", "/console", "/console/*", "/unlock/*"} <= set(by_path)
    unlock = by_path["/unlock/*"]
    assert (unlock["TargetOriginId"], unlock["CachePolicyId"]) == ("api", "4135ea2d-6df8-44a3-9df3-4b5a84be39ad")
    assert "POST" in unlock["AllowedMethods"]
    for behaviour in by_path.values():
        assert behaviour.get("TargetOriginId", "api") == "api" or "<<" in behaviour


# The templates' own lint weighs every condition; this lints the edge tier as it is deployed
# across three regions, with failover to a second region's origin.
def test_cfn_lint_finds_nothing_for_the_edge_tier_in_three_regions():
    template = Path(__file__).resolve().parents[2] / "template.yaml"
    deployed = {**SEVERAL, "EdgeFailoverOrigin": "abc123.execute-api.us-west-2.amazonaws.com"}
    matches = cfnlint.api.lint_file(template, config=ManualArgs(parameters=[deployed]))
    assert [str(match) for match in matches] == []
