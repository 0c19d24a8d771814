"""shortlink.edge.count_check's EdgeCounts from CloudWatch: CloudFront's FunctionInvocations,
which CloudFront publishes in us-east-1 whatever the stack's region (a client of that region),
and ingest's EdgeLogLines in the stack's own region (a client of its own). Sums over the whole
period in one datapoint; a CloudWatch error becomes StorageUnavailable."""

from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from shortlink.edge.count_check import CountPeriod
from shortlink.errors import StorageUnavailable

# CloudFront's metrics, its functions' included, live in us-east-1 under the "Global" region.
CLOUDFRONT_METRICS_REGION = "us-east-1"
LOG_LINES_METRIC = "EdgeLogLines"


class CloudWatchEdgeCounts:
    def __init__(self, cloudfront_metrics: Any, own_metrics: Any, function_name: str, namespace: str) -> None:
        self._cloudfront = cloudfront_metrics  # a CloudWatch client in us-east-1
        self._own = own_metrics  # a CloudWatch client in the stack's region
        self._function_name = function_name
        self._namespace = namespace

    def function_invocations(self, period: CountPeriod) -> int:
        dimensions = {"FunctionName": self._function_name, "Region": "Global"}
        return _sum(self._cloudfront, "AWS/CloudFront", "FunctionInvocations", dimensions, period)

    def log_lines(self, period: CountPeriod) -> int:
        return _sum(self._own, self._namespace, LOG_LINES_METRIC, {"service": "ingest"}, period)


def _sum(client: Any, namespace: str, name: str, dimensions: dict[str, str], period: CountPeriod) -> int:
    seconds = int((period.end - period.start).total_seconds())
    query = {
        "Id": "total",
        "MetricStat": {
            "Metric": {
                "Namespace": namespace,
                "MetricName": name,
                "Dimensions": [{"Name": key, "Value": value} for key, value in dimensions.items()],
            },
            "Period": seconds,
            "Stat": "Sum",
        },
    }
    try:
        answer = client.get_metric_data(MetricDataQueries=[query], StartTime=period.start, EndTime=period.end)
    except (ClientError, BotoCoreError) as error:
        raise StorageUnavailable(f"CloudWatch: {name} not read") from error
    return int(sum(sum(result["Values"]) for result in answer["MetricDataResults"]))
