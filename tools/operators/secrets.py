"""Create a stack's secrets in SSM Parameter Store, once, before its first deploy, the same in
every region of its deployment.

    python -m tools.operators.secrets --env default      # or: make secrets ENV=prod

The names come from samconfig.toml (the environment's PermutationKeyParameter,
VisitorSaltParameter, EdgeSecretParameter and ConsoleSessionSecretParameter overrides), and so do
the regions: every region of its Regions override (docs/regions.md), else the one of --region or
your AWS configuration. Values are random, written only where the parameter does not exist yet (a
changed permutation key would make new codes collide with old ones), copied to the regions that
lack one, and never printed. Regions that hold different values are reported and nothing is
written: two regions with different permutation keys could give their links the same code. The
domain settings (DomainSettingsParameter) are yours to write in one region; they are copied to
the others. The functions read the SecureStrings through Powertools Parameters, with caching;
CloudFormation puts the edge secret (a String) into CloudFront and the redirect.
"""

import argparse
import hashlib
import secrets
import shlex
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tools.operators.aws_target import configure_endpoint

ROOT = Path(__file__).resolve().parents[2]
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
    # False: a value the operator writes (the domain settings), only ever copied.
    generated: bool = True


class RegionsDisagree(SystemExit):
    """Some regions hold a different value of a parameter than others."""


def environment_overrides(environment: str, samconfig: Path = SAMCONFIG) -> dict[str, str]:
    """The template parameters an environment of samconfig.toml deploys with."""
    config = tomllib.loads(samconfig.read_text())
    if environment not in config:
        raise SystemExit(f"no environment {environment!r} in {samconfig.name} (have: {', '.join(config)})")
    overrides_text = config[environment].get("deploy", {}).get("parameters", {}).get("parameter_overrides", "")
    return dict(item.split("=", 1) for item in shlex.split(overrides_text))


def environment_regions(environment: str, samconfig: Path = SAMCONFIG) -> list[str]:
    """The regions of an environment's deployment (its Regions override); [] for one region."""
    return [region for region in environment_overrides(environment, samconfig).get("Regions", "").split(",") if region]


def stack_secrets(environment: str, samconfig: Path = SAMCONFIG) -> list[Secret]:
    """The SSM names of an environment's shared values, as its samconfig.toml deploys them."""
    overrides = environment_overrides(environment, samconfig)
    shared = [
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
    if overrides.get("DomainSettingsParameter"):
        shared.append(Secret(overrides["DomainSettingsParameter"], "the short domains' settings", "String", False))
    return shared


def current_value(ssm: Any, name: str) -> str | None:
    try:
        return str(ssm.get_parameter(Name=name, WithDecryption=True)["Parameter"]["Value"])
    except ssm.exceptions.ParameterNotFound:
        return None


def disagreement(secret: Secret, found: dict[str, str | None]) -> str | None:
    """How the regions that hold `secret` differ (never its values), or None if they agree."""
    groups: dict[str, list[str]] = {}
    for region, value in found.items():
        if value is not None:
            groups.setdefault(hashlib.sha256(value.encode()).hexdigest(), []).append(region)
    if len(groups) < 2:
        return None
    sides = "; ".join(f"value {number} in {', '.join(regions)}" for number, regions in enumerate(groups.values(), 1))
    return f"{secret.name} ({secret.purpose}) differs between regions: {sides}"


def ensure_secret(ssm: Any, secret: Secret, value: str | None = None) -> bool:
    """Create `secret` (with `value`, else a random one) unless it exists; True if it was created."""
    try:
        ssm.put_parameter(
            Name=secret.name,
            Type=secret.type,
            Value=value if value is not None else secrets.token_urlsafe(SECRET_BYTES),
            Description=f"Shortlink: {secret.purpose}",
            Overwrite=False,
        )
    except ssm.exceptions.ParameterAlreadyExists:
        return False
    return True


def share_secrets(clients: dict[str, Any], shared: list[Secret]) -> list[str]:
    """Give every region of `clients` (region → SSM client) the same value of each of `shared`:
    the one some regions hold, else a new random one. Refuses before writing anything when
    regions disagree. What was done, one line per parameter."""
    found = {secret: {region: current_value(ssm, secret.name) for region, ssm in clients.items()} for secret in shared}
    problems = [problem for secret in shared if (problem := disagreement(secret, found[secret]))]
    if problems:
        raise RegionsDisagree("\n".join([*problems, "nothing was written: make the regions agree first"]))
    report = []
    for secret in shared:
        held = {region: value for region, value in found[secret].items() if value is not None}
        if not held and not secret.generated:
            report.append(f"missing {secret.name} ({secret.purpose}): write it in one region, then run this again")
            continue
        value = next(iter(held.values())) if held else secrets.token_urlsafe(SECRET_BYTES)
        written = [region for region in clients if region not in held and ensure_secret(clients[region], secret, value)]
        where = f" in {', '.join(written)}" if len(clients) > 1 else ""
        if not written:
            report.append(f"kept    {secret.name} ({secret.purpose}): it exists, and is never replaced")
        elif held:
            report.append(f"copied  {secret.name} ({secret.purpose}) from {', '.join(held)} to {', '.join(written)}")
        else:
            report.append(f"created {secret.name} ({secret.purpose}){where}")
    return report


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tools.operators.secrets", description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", default="default", help="samconfig.toml environment (default: default)")
    parser.add_argument("--endpoint-url", help="an AWS-compatible endpoint (default: AWS)")
    parser.add_argument("--region", help="AWS region of a one-region environment (default: your AWS configuration)")
    args = parser.parse_args(argv)
    args.local = False
    configure_endpoint(args)
    import boto3

    regions = environment_regions(args.env)
    if regions:
        clients = {region: boto3.client("ssm", region_name=region) for region in regions}
    else:
        ssm = boto3.client("ssm")
        clients = {ssm.meta.region_name: ssm}
    for line in share_secrets(clients, stack_secrets(args.env)):
        print(line)


if __name__ == "__main__":
    main(sys.argv[1:])
