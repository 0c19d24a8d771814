"""The edge's counts check against moto's CloudWatch, in a home region that is not us-east-1:
CloudFront's FunctionInvocations read in us-east-1, ingest's EdgeLogLines in the function's own
region, both summed over the same closed hour, and the difference and ratio published; a
CloudWatch error is StorageUnavailable, never a wrong figure."""

import json
from datetime import UTC, datetime, timedelta

import boto3
import pytest
from botocore.exceptions import ClientError

from shortlink import wiring as services
from shortlink.adapters.cloudwatch.edge_counts import CloudWatchEdgeCounts
from shortlink.edge.count_check import closed_period
from shortlink.errors import StorageUnavailable

HOME = "eu-central-1"
FUNCTION = "shortlink-edge-redirect"


def put(region: str, namespace: str, name: str, dimensions: dict[str, str], at: datetime, value: float) -> None:
    boto3.client("cloudwatch", region_name=region).put_metric_data(
        Namespace=namespace,
        MetricData=[
            {
                "MetricName": name,
                "Dimensions": [{"Name": key, "Value": text} for key, text in dimensions.items()],
                "Timestamp": at,
                "Value": value,
                "Unit": "Count",
            }
        ],
    )


def test_the_check_reads_cloudfront_in_us_east_1_and_the_lines_at_home(aws, handlers, monkeypatch, capsys):
    # Given a home region other than us-east-1 and the hour the check will compare
    monkeypatch.setenv("AWS_REGION", HOME)
    monkeypatch.setenv("AWS_DEFAULT_REGION", HOME)
    monkeypatch.setenv("EDGE_FUNCTION_NAME", FUNCTION)
    services.reset()
    period = closed_period(datetime.now(UTC))
    inside, outside = period.start + timedelta(minutes=20), period.end + timedelta(minutes=5)
    cloudfront = {"FunctionName": FUNCTION, "Region": "Global"}
    # CloudFront's count in us-east-1 (and one of another function, and one after the hour)
    put("us-east-1", "AWS/CloudFront", "FunctionInvocations", cloudfront, inside, 600)
    put("us-east-1", "AWS/CloudFront", "FunctionInvocations", cloudfront, inside + timedelta(minutes=30), 400)
    put("us-east-1", "AWS/CloudFront", "FunctionInvocations", {**cloudfront, "FunctionName": "other"}, inside, 7)
    put("us-east-1", "AWS/CloudFront", "FunctionInvocations", cloudfront, outside, 50)
    # The lines ingest read at home, by their requests' minute (none in us-east-1's Shortlink)
    put(HOME, "Shortlink", "EdgeLogLines", {"service": "ingest"}, inside, 990)
    put(HOME, "Shortlink", "EdgeLogLines", {"service": "ingest"}, outside, 60)
    put("us-east-1", "Shortlink", "EdgeLogLines", {"service": "ingest"}, inside, 5)
    # When the scheduled check runs
    capsys.readouterr()
    handlers["EdgeCountsFunction"]({"source": "aws.events", "detail-type": "Scheduled Event"})
    # Then it published the hour's difference and ratio (1 %: the alarm's edge)
    [published] = [json.loads(text) for text in capsys.readouterr().out.splitlines() if "EdgeCountRatio" in text]
    assert (published["EdgeCountDifference"], published["EdgeCountRatio"]) == ([10], [0.99])
    assert published["service"] == "edge-counts"
    services.reset()


def test_a_cloudwatch_error_is_storage_unavailable():
    class Refusing:
        def get_metric_data(self, **query):
            raise ClientError({"Error": {"Code": "Throttling", "Message": "slow down"}}, "GetMetricData")

    counts = CloudWatchEdgeCounts(Refusing(), Refusing(), FUNCTION, "Shortlink")
    with pytest.raises(StorageUnavailable):
        counts.function_invocations(closed_period(datetime.now(UTC)))
