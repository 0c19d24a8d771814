"""The stream of a region's click-stats replica, looked up as `make deploy` deploys the region.

    python -m tools.operators.stream_arn --env global-us     # what make deploy ENV=global-us runs first

A stack away from the home region (or one whose tables are out of the stack, docs/regions.md)
reads the click-stats table's stream of its own region, which the home region's stack created
with the replica: its ARN holds the replica's creation time, so no samconfig.toml can know it. This
prints the `--parameter-overrides` of `sam deploy`: the environment's own, plus
ClickStatsStreamArn read from the table in the region deployed to (a replica made again gets its
new stream at the next deploy). It prints nothing where none is needed (the home region with its
tables) or where the environment names one itself.
"""

import argparse
import shlex
import sys
import tomllib
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from tools.operators.secrets import SAMCONFIG, environment_overrides

STREAM_PARAMETER = "ClickStatsStreamArn"


def needs_stream(overrides: dict[str, str], region: str) -> bool:
    """Whether a stack of these parameters in `region` is told its click-stats stream."""
    home = overrides.get("HomeRegion", "")
    return overrides.get("TablesInStack", "true") == "false" or (home not in ("", region))


def click_stats_table(overrides: dict[str, str]) -> str:
    """The click-stats table's name, as the template makes it."""
    return f"{overrides.get('TableNamePrefix', '')}ClickStatsTable{overrides.get('ClickStatsTableSuffix', '')}"


def latest_stream(dynamodb: Any, table: str) -> str:
    """The table's stream in the client's region; SystemExit naming what to do when it has none."""
    region = dynamodb.meta.region_name
    try:
        found = dynamodb.describe_table(TableName=table)["Table"].get("LatestStreamArn")
    except dynamodb.exceptions.ResourceNotFoundException:
        found = None
    if not found:
        raise SystemExit(
            f"{table} has no replica with a stream in {region} yet: deploy the home region first (it makes the replica)"
        )
    return str(found)


def deploy_region(environment: str, samconfig: Path = SAMCONFIG) -> str | None:
    """The region an environment deploys to (its deploy.parameters.region), None for your AWS configuration's."""
    region = tomllib.loads(samconfig.read_text())[environment].get("deploy", {}).get("parameters", {}).get("region")
    return str(region) if region else None


def deploy_arguments(
    environment: str, region: str, dynamodb: Callable[[str], Any], samconfig: Path = SAMCONFIG
) -> list[str]:
    """`sam deploy`'s extra arguments for `environment` deployed to `region` (`dynamodb`: a client
    of a region, made only where a stream is looked up)."""
    overrides = environment_overrides(environment, samconfig)
    if STREAM_PARAMETER in overrides or not needs_stream(overrides, region):
        return []
    overrides[STREAM_PARAMETER] = latest_stream(dynamodb(region), click_stats_table(overrides))
    return ["--parameter-overrides", *(f"{name}={value}" for name, value in overrides.items())]


def main(argv: list[str] | None = None) -> int:
    import boto3

    parser = argparse.ArgumentParser(prog="python -m tools.operators.stream_arn", description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", default="default", help="the samconfig.toml environment (make deploy's ENV)")
    args = parser.parse_args(argv)
    region = deploy_region(args.env) or boto3.session.Session().region_name or ""
    print(shlex.join(deploy_arguments(args.env, region, partial(boto3.client, "dynamodb"))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
