"""Where the command-line tools act: the local stack, a deployed stack, or a named resource."""

import argparse
import ipaddress
import os
from urllib.parse import urlsplit

DEFAULT_MOTO_PORT = "5005"


def add_target_arguments(parser: argparse.ArgumentParser, direct_option: str, direct_help: str) -> None:
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument(
        "--local", action="store_true", help=f"the local stack (make dev) on MOTO_PORT ({DEFAULT_MOTO_PORT})"
    )
    where.add_argument("--stack-name", help="a deployed stack, found with your AWS credentials")
    where.add_argument(direct_option, help=direct_help)
    parser.add_argument("--endpoint-url", help="an AWS-compatible endpoint (default: AWS, or the local stack)")
    parser.add_argument("--region", help="AWS region (default: your AWS configuration)")


# The services of the local stack, by botocore's names for their endpoint variables.
LOCAL_SERVICES = {"dynamodb": "AWS_ENDPOINT_URL_DYNAMODB", "sqs": "AWS_ENDPOINT_URL_SQS"}


def given_endpoint(service: str) -> str | None:
    """The endpoint the environment names for `service`, in botocore's order: the service's own
    variable first, then AWS_ENDPOINT_URL; None when neither is set."""
    return os.environ.get(LOCAL_SERVICES[service]) or os.environ.get("AWS_ENDPOINT_URL") or None


def on_this_machine(endpoint: str) -> bool:
    """Whether `endpoint` is a loopback address (127.0.0.0/8, ::1, localhost)."""
    host = urlsplit(endpoint).hostname or ""
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def choose_local_credentials() -> str | None:
    """Credentials for the local stack's endpoints, or the one line that says what is missing.

    Endpoints on this machine (the embedded moto, a loopback DynamoDB or SQS) get placeholder
    credentials, never a real profile's. An endpoint elsewhere is used with the credentials the
    environment gives, and finding none is an error, told before any call is made."""
    endpoints = (given_endpoint(service) for service in LOCAL_SERVICES)
    outside = sorted({endpoint for endpoint in endpoints if endpoint is not None and not on_this_machine(endpoint)})
    if not outside:
        os.environ["AWS_ACCESS_KEY_ID"] = "local"
        os.environ["AWS_SECRET_ACCESS_KEY"] = "local"
        os.environ.pop("AWS_SESSION_TOKEN", None)
        os.environ.pop("AWS_PROFILE", None)
        return None
    import botocore.session
    from botocore.exceptions import BotoCoreError

    where = " and ".join(outside)
    try:
        if botocore.session.get_session().get_credentials() is not None:
            return None
    except BotoCoreError as error:  # a profile that is not there, an expired SSO session...
        return f"the AWS credentials for {where} (not on this machine) could not be read: {error}"
    return (
        f"no AWS credentials found for {where} (not on this machine): set"
        " AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE"
    )


def embedded_moto_url() -> str:
    return f"http://127.0.0.1:{os.environ.get('MOTO_PORT') or DEFAULT_MOTO_PORT}"


def configure_endpoint(args: argparse.Namespace) -> None:
    """Point boto3 and pynamodb at the chosen endpoint (through botocore's own variables).

    --local finds the stack where `make dev` put it: the endpoints the environment names, else
    the embedded moto server on MOTO_PORT."""
    if args.region:
        os.environ["AWS_DEFAULT_REGION"] = args.region
    if args.local:
        os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
        os.environ.setdefault("AWS_ACCESS_KEY_ID", "local")
        os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "local")
        for service, variable in LOCAL_SERVICES.items():
            os.environ[variable] = args.endpoint_url or given_endpoint(service) or embedded_moto_url()
    elif args.endpoint_url:
        os.environ["AWS_ENDPOINT_URL"] = args.endpoint_url


def deployed_resource(stack_name: str, logical_id: str) -> str:
    """The physical id (table name, queue URL, ...) of a template resource in a deployed stack."""
    import boto3

    detail = boto3.client("cloudformation").describe_stack_resource(StackName=stack_name, LogicalResourceId=logical_id)
    return str(detail["StackResourceDetail"]["PhysicalResourceId"])
