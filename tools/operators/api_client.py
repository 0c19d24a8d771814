"""The API of a stack, for commands that act as a key's client: the local stack, a deployed
stack (its ApiUrl output) or a given address, with an API key."""

import argparse
import json
import os
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any

DEFAULT_PORT = "3000"
TIMEOUT_SECONDS = 60


def add_api_arguments(parser: argparse.ArgumentParser) -> None:
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--local", action="store_true", help=f"the local stack (make dev) on PORT ({DEFAULT_PORT})")
    where.add_argument("--stack-name", help="a deployed stack, its ApiUrl found with your AWS credentials")
    where.add_argument("--url", help="the API's address, e.g. https://sho.rt")
    parser.add_argument("--key", default=os.environ.get("SHORTLINK_API_KEY"), help="API key (or SHORTLINK_API_KEY)")


@dataclass(frozen=True)
class Answer:
    status: int
    body: bytes
    headers: dict[str, str]

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass(frozen=True)
class Api:
    base_url: str
    key: str

    @classmethod
    def of(cls, args: argparse.Namespace) -> "Api":
        if not args.key:
            raise SystemExit("an API key is needed: --key or SHORTLINK_API_KEY")
        if args.local:
            base = f"http://127.0.0.1:{os.environ.get('PORT') or DEFAULT_PORT}"
        elif args.stack_name:
            base = stack_api_url(args.stack_name)
        else:
            base = args.url
        return cls(base.rstrip("/"), args.key)

    def request(self, method: str, path: str, body: bytes | None = None, content_type: str | None = None) -> Answer:
        headers = {"Authorization": f"Bearer {self.key}"}
        if content_type:
            headers["Content-Type"] = content_type
        if not self.base_url.startswith(("http://", "https://")):
            raise SystemExit(f"the API's address must be http(s): {self.base_url}")
        url = f"{self.base_url}{path}"
        request = urllib.request.Request(url, data=body, method=method, headers=headers)  # noqa: S310 (http(s) only)
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as response:  # noqa: S310 (http(s) only)
                return Answer(response.status, response.read(), dict(response.headers))
        except urllib.error.HTTPError as error:
            return Answer(error.code, error.read(), dict(error.headers))


def stack_api_url(stack_name: str) -> str:
    import boto3

    [stack] = boto3.client("cloudformation").describe_stacks(StackName=stack_name)["Stacks"]
    outputs = {output["OutputKey"]: output["OutputValue"] for output in stack.get("Outputs", [])}
    return str(outputs["ApiUrl"])


def refusal(answer: Answer) -> str:
    """An error answer as one sentence."""
    try:
        document = answer.json()
        return f"{answer.status} {document['error']}: {document['message']}"
    except (ValueError, KeyError, TypeError):
        return f"{answer.status}: {answer.body[:200].decode(errors='replace')}"
