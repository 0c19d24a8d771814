"""Upload an IP database (.mmdb) to the bucket the redirect reads it from (the template's
IpDatabaseBucket): every redirect environment takes it within IpDatabaseCheckMinutes, no redeploy.

    python -m tools.operators.ip_databases country dbip-country-lite-2026-12.mmdb --stack-name shortlink
    python -m tools.operators.ip_databases network dbip-asn-lite-2026-12.mmdb --bucket my-ip-databases

The file is opened first, as the redirect will open it, and refused (nothing uploaded) when it is
not a database of that kind: a wrong or corrupt upload would be logged by every environment and
leave its dimension on the database read before.
"""

import argparse
import sys
from pathlib import Path
from typing import Any

# The kinds by the template's key parameter and the word a database's type names them with
# (GeoLite2-Country, DBIP-Country-Lite; GeoLite2-ASN, DBIP-ASN-Lite).
KINDS = {"country": ("CountryDatabaseKey", "country"), "network": ("NetworkDatabaseKey", "asn")}
DEFAULT_KEYS = {"country": "countries.mmdb", "network": "networks.mmdb"}


def checked_database(kind: str, path: Path) -> str:
    """The database type of the file at `path`; SystemExit naming the problem when it is not a
    readable database of `kind`."""
    import maxminddb

    try:
        with maxminddb.open_database(str(path), maxminddb.MODE_MEMORY) as reader:
            database_type = str(reader.metadata().database_type)
    except (OSError, ValueError, maxminddb.InvalidDatabaseError) as error:
        raise SystemExit(f"{path} is not a readable .mmdb database: {error}") from None
    if KINDS[kind][1] not in database_type.lower():
        raise SystemExit(f"{path} is a {database_type} database, not a {kind} database: nothing uploaded")
    return database_type


def stack_location(cloudformation: Any, stack_name: str, kind: str) -> tuple[str, str]:
    """The bucket and key a deployed stack reads `kind` from; SystemExit when it names no bucket."""
    stack = cloudformation.describe_stacks(StackName=stack_name)["Stacks"][0]
    parameters = {item["ParameterKey"]: item.get("ParameterValue", "") for item in stack.get("Parameters", [])}
    bucket = parameters.get("IpDatabaseBucket", "")
    if not bucket:
        raise SystemExit(f"stack {stack_name} has no IpDatabaseBucket: deploy it with one first (docs/analytics.md)")
    return bucket, parameters.get(KINDS[kind][0]) or DEFAULT_KEYS[kind]


def upload(s3: Any, path: Path, bucket: str, key: str) -> str:
    """Put the file as s3://bucket/key; its new ETag."""
    with path.open("rb") as body:
        return str(s3.put_object(Bucket=bucket, Key=key, Body=body)["ETag"])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("kind", choices=sorted(KINDS), help="country: IP → country; network: IP → ASN")
    parser.add_argument("path", type=Path, help="the .mmdb file (DB-IP Lite or MaxMind GeoLite2)")
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--stack-name", help="a deployed stack: its IpDatabaseBucket and key parameters")
    where.add_argument("--bucket", help="the bucket itself (with --key, default countries.mmdb / networks.mmdb)")
    parser.add_argument("--key", help="the object's key with --bucket")
    parser.add_argument("--region", help="AWS region (default: your AWS configuration)")
    args = parser.parse_args(argv)
    database_type = checked_database(args.kind, args.path)

    import boto3

    if args.stack_name:
        bucket, key = stack_location(
            boto3.client("cloudformation", region_name=args.region), args.stack_name, args.kind
        )
    else:
        bucket, key = args.bucket, args.key or DEFAULT_KEYS[args.kind]
    etag = upload(boto3.client("s3", region_name=args.region), args.path, bucket, key)
    print(f"uploaded {args.path} ({database_type}) to s3://{bucket}/{key}, ETag {etag}", file=sys.stdout)


if __name__ == "__main__":
    main()
