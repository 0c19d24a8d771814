"""The prices `make cost` uses (AWS list prices, us-east-1, on-demand, no free tier) and how a
line of a table is priced."""

import math
from dataclasses import dataclass

TARGET_PER_MILLION_REDIRECTS = 1.40

# USD, us-east-1, list prices.
PRICES = {
    "http_api_request": 1.00 / 1e6,  # HTTP API, first 300 million a month
    "http_api_request_over_300m": 0.90 / 1e6,  # HTTP API, beyond 300 million a month
    "lambda_request": 0.20 / 1e6,
    "lambda_gb_second_arm64": 0.0000133334,
    "lambda_gb_second_x86_64": 0.0000166667,
    "sqs_request": 0.40 / 1e6,  # standard queue, per 64 KB request
    "dynamodb_read_unit": 0.125 / 1e6,  # on-demand
    "dynamodb_write_unit": 0.625 / 1e6,  # on-demand
    "logs_ingested_gb": 0.50,  # CloudWatch Logs, standard class
    "logs_ingested_gb_infrequent_access": 0.25,  # CloudWatch Logs, Infrequent Access class
    # A global table's write applied in another region: a replicated write unit there (on-demand,
    # the price of a write unit), and the bytes sent between the regions.
    "dynamodb_replicated_write_unit": 0.625 / 1e6,
    "inter_region_transfer_gb": 0.02,
}
# Lambda's own "start" and "report" lines per invocation at SystemLogLevel INFO (JSON format).
PLATFORM_LOG_BYTES = 700
API_REQUEST_ITEM = "API Gateway HTTP API request"
ACCESS_LOG_ITEM = "CloudWatch Logs (API access log line)"
# The event source reads and deletes SQS messages 10 per request; SQS bills a request per 64 KB.
MESSAGES_PER_SQS_REQUEST = 10
SQS_BILLING_CHUNK = 64 * 1024
# A write unit covers up to 1 KB of item: the most a replicated write sends to another region.
REPLICATED_BYTES_PER_WRITE_UNIT = 1024
# The deployments `make cost` compares: one region, and the docs' three (docs/regions.md).
REGION_COUNTS = (1, 3)
TRAFFIC = {
    "sustained": "sustained load (clicks packed)",
    "idle": "idle traffic (each click sent at once)",
}


@dataclass(frozen=True)
class Line:
    item: str
    quantity: float  # per request of the kind priced
    unit: str
    unit_price: float

    @property
    def cost_per_million(self) -> float:
        return self.quantity * self.unit_price * 1e6


@dataclass(frozen=True)
class FunctionSpec:
    memory_gb: float
    architecture: str
    platform_logs: bool  # Lambda's start/report lines reach CloudWatch Logs

    def gb_second_price(self) -> float:
        return PRICES[f"lambda_gb_second_{self.architecture}"]


def billed_ms(duration_ms: float) -> int:
    return max(1, math.ceil(duration_ms))


def log_line(item: str, bytes_per_request: float, price_per_gb: float = PRICES["logs_ingested_gb"]) -> Line:
    return Line(item, bytes_per_request / 1e9, "GB", price_per_gb)


def totals(lines: list[Line]) -> tuple[float, float]:
    """Per million: at the first volume tier, and beyond 300 million API requests a month."""
    total = sum(line.cost_per_million for line in lines)
    api_requests = sum(line.quantity for line in lines if line.item == API_REQUEST_ITEM)
    discount = api_requests * (PRICES["http_api_request"] - PRICES["http_api_request_over_300m"]) * 1e6
    return total, total - discount


def verdict(total: float) -> str:
    return "met" if total <= TARGET_PER_MILLION_REDIRECTS else "NOT met"


def fixed_floor(api_request_price: float) -> float:
    """Per million redirects, what no duration, write, log or packing is in: the API request and
    the invocation."""
    return (api_request_price + PRICES["lambda_request"]) * 1e6


def per_million_redirects(bytes_per_redirect: float, price_per_gb: float) -> float:
    return bytes_per_redirect / 1e9 * price_per_gb * 1e6
