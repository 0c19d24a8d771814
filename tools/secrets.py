"""Create a stack's secrets in SSM Parameter Store, once, before its first deploy.

    python -m tools.secrets --env default      # or: make secrets ENV=prod

The names come from samconfig.toml (the environment's PermutationKeyParameter,
VisitorSaltParameter, EdgeSecretParameter and ConsoleSessionSecretParameter overrides). Values
are random, written only if the parameter does not exist yet (a changed permutation key would
make new codes collide with old ones), and never printed. The functions read the SecureStrings
through Powertools Parameters, with caching; CloudFormation puts the edge secret (a String) into
CloudFront and the redirect.
"""

import argparse
import secrets
import shlex
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tools.aws_target import configure_endpoint

ROOT = Path(__file__).resolve().parents[1]
SAMCONFIG = ROOT / "samconfig.toml"
TEMPLATE_DEFAULT_KEY_PARAMETER = "/shortlink/permutation-key"
TEMPLATE_DEFAULT_SALT_PARAMETER = "/shortlink/visitor-salt"
TEMPLATE_DEFAULT_EDGE_PARAMETER = "/shortlink/edge-secret"
TEMPLATE_DEFAULT_CONSOLE_PARAMETER = "/shortlink/console-session-secret"
SECRET_BYTES = 48  # 384 random bits, far beyond the 16 bytes the permutation needs


@dataclass(frozen=True)
class Secret:
    name: str
    purpose: str
    # CloudFormation resolves only String parameters into CloudFront's origin headers.
    type: str = "SecureString"


def stack_secrets(environment: str, samconfig: Path = SAMCONFIG) -> list[Secret]:
    """The SSM names of an environment's secrets, as its samconfig.toml deploys them."""
    config = tomllib.loads(samconfig.read_text())
    if environment not in config:
        raise SystemExit(f"no environment {environment!r} in {samconfig.name} (have: {', '.join(config)})")
    overrides_text = config[environment].get("deploy", {}).get("parameters", {}).get("parameter_overrides", "")
    overrides = dict(item.split("=", 1) for item in shlex.split(overrides_text))
    return [
        Secret(overrides.get("PermutationKeyParameter", TEMPLATE_DEFAULT_KEY_PARAMETER), "the code permutation key"),
        Secret(
            overrides.get("VisitorSaltParameter", TEMPLATE_DEFAULT_SALT_PARAMETER),
            "the root of the daily visitor-hash salt",
        ),
        Secret(
            overrides.get("EdgeSecretParameter", TEMPLATE_DEFAULT_EDGE_PARAMETER),
            "the proof CloudFront adds to requests it sends to the API",
            "String",
        ),
        Secret(
            overrides.get("ConsoleSessionSecretParameter", TEMPLATE_DEFAULT_CONSOLE_PARAMETER),
            "the key that signs the web console's session cookies",
        ),
    ]


def ensure_secret(ssm: Any, secret: Secret) -> bool:
    """Create `secret` with a random value unless it exists; True if it was created."""
    try:
        ssm.put_parameter(
            Name=secret.name,
            Type=secret.type,
            Value=secrets.token_urlsafe(SECRET_BYTES),
            Description=f"Shortlink: {secret.purpose}",
            Overwrite=False,
        )
    except ssm.exceptions.ParameterAlreadyExists:
        return False
    return True


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tools.secrets", description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", default="default", help="samconfig.toml environment (default: default)")
    parser.add_argument("--endpoint-url", help="an AWS-compatible endpoint (default: AWS)")
    parser.add_argument("--region", help="AWS region (default: your AWS configuration)")
    args = parser.parse_args(argv)
    args.local = False
    configure_endpoint(args)
    import boto3

    ssm = boto3.client("ssm")
    for secret in stack_secrets(args.env):
        if ensure_secret(ssm, secret):
            print(f"created {secret.name} ({secret.purpose})")
        else:
            print(f"kept    {secret.name} ({secret.purpose}): it exists, and is never replaced")


if __name__ == "__main__":
    main(sys.argv[1:])
