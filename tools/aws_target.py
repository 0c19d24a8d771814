"""Where the command-line tools act: the local stack, a deployed stack, or a named resource."""

import argparse
import os

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
