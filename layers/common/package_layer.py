"""Package the common layer: pinned dependencies, the shortlink package, botocore trimmed to the
services we call, everything precompiled for the runtime's Python.

    python3.13 package_layer.py TARGET [--platform manylinux2014_x86_64]

`sam build` runs it through this directory's Makefile (BuildMethod: makefile); `make bench`
runs it for the host to measure cold starts with exactly what Lambda loads. Standard library only.

Why trim botocore: creating a client lists every service directory in botocore/data (about 440
directories, thousands of stat calls) before it loads the one it needs. Keeping only our services
takes about 30 ms off a cold start here and 25 MB off the layer. The first client also decodes
endpoints.json (1.2 MB, every service of every partition) and its service's model, mostly
documentation, from gzip: the layer keeps our services' endpoints and their models without the
documentation, as plain compact JSON, which botocore's loader reads before a .json.gz.
"""

import argparse
import compileall
import gzip
import json
import py_compile
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
RUNTIME_PYTHON = (3, 13)
# Every AWS service the functions call, through boto3, pynamodb or Powertools. A client for a
# service not listed here fails with UnknownServiceError: add it here first.
BOTOCORE_SERVICES = frozenset(
    {
        "athena",  # the click lake's daily check (shortlink.adapters.athena)
        "cloudfront-keyvaluestore",  # the edge tier's sync (shortlink.adapters.cloudfront)
        "cloudwatch",  # the edge tier's counts check reads metrics (shortlink.adapters.cloudwatch)
        "cognito-idp",  # the console's sign-in of people (shortlink.adapters.cognito)
        "dynamodb",  # links, keys, counters, click stats (pynamodb), Powertools Idempotency
        "firehose",  # the click lake's rows (shortlink.adapters.firehose)
        "s3",  # the IP databases of IpDatabaseBucket (shortlink.adapters.s3)
        "sesv2",  # invitations emailed (shortlink.adapters.cognito.invitation_messages)
        "sqs",  # the clicks queue
        "ssm",  # secrets read through Powertools Parameters
        "sts",  # credential providers that assume a role
        "xray",  # Powertools Tracer: the X-Ray SDK reads its sampling rules
    }
)
# Lambda's python3.13 runs on Amazon Linux 2023, glibc 2.34. pip takes a platform tag literally:
# wheels for a newer manylinux than manylinux2014 (2_17), such as ada-url's 2_28, are asked for
# by name, up to that glibc.
LAMBDA_GLIBC_MINOR = 34


def platform_tags(platform: str) -> list[str]:
    """`platform` and, for manylinux2014, the newer manylinux tags of its architecture."""
    if not platform.startswith("manylinux2014_"):
        return [platform]
    architecture = platform.removeprefix("manylinux2014_")
    return [platform, *(f"manylinux_2_{minor}_{architecture}" for minor in range(18, LAMBDA_GLIBC_MINOR + 1))]


def install_dependencies(target: Path, platform: str | None) -> None:
    command = [sys.executable, "-m", "pip", "install", "--quiet", "--no-compile", "--target", str(target)]
    if platform:
        # Wheels for Lambda's platform, whatever the build machine is.
        major, minor = RUNTIME_PYTHON
        command += [
            *(argument for tag in platform_tags(platform) for argument in ("--platform", tag)),
            "--implementation",
            "cp",
            "--python-version",
            f"{major}.{minor}",
            "--only-binary=:all:",
        ]
    subprocess.run([*command, "-r", str(HERE / "requirements.txt")], check=True, timeout=900)


# The members of a service model that only docstrings and generated docs read.
DOCUMENTATION_KEYS = ("documentation", "documentationUrl")


def trim_botocore(target: Path) -> None:
    data = target / "botocore" / "data"
    for entry in data.iterdir():
        if entry.is_dir() and entry.name not in BOTOCORE_SERVICES:
            shutil.rmtree(entry)
    for model in data.glob("*/*/*.json.gz"):
        content = json.loads(gzip.decompress(model.read_bytes()))
        if model.name == "service-2.json.gz":
            drop_documentation(content)
        write_compact_json(model.with_suffix(""), content)
        model.unlink()
    trim_endpoints(data)


def drop_documentation(service: dict[str, Any]) -> None:
    """Drop the documentation of the service, its operations, shapes and members (the only
    places a service-2.json has it), nothing a call reads."""
    shapes = service.get("shapes", {}).values()
    members = (member for shape in shapes for member in shape.get("members", {}).values())
    for part in (service, *service.get("operations", {}).values(), *shapes, *members):
        for key in DOCUMENTATION_KEYS:
            part.pop(key, None)


def trim_endpoints(data: Path) -> None:
    """endpoints.json with each partition's entries for our services only, by their endpoint
    prefix (a service missing here would fall back to its partition's defaults)."""
    prefixes = {
        json.loads(model.read_bytes())["metadata"]["endpointPrefix"] for model in data.glob("*/*/service-2.json")
    }
    endpoints = json.loads((data / "endpoints.json").read_bytes())
    for partition in endpoints["partitions"]:
        partition["services"] = {name: entry for name, entry in partition["services"].items() if name in prefixes}
    write_compact_json(data / "endpoints.json", endpoints)


def write_compact_json(path: Path, content: Any) -> None:
    path.write_text(json.dumps(content, separators=(",", ":")), encoding="utf-8")


def drop_build_leftovers(target: Path) -> None:
    # ada-url's wheel carries the C++ sources it was compiled from, its build script and a
    # top-level docs/ package: about 1.2 MB that nothing loads.
    for name in ("ada_url/ada.cpp", "ada_url/ada.h", "ada_url/ada_c.h", "ada_url/ada_build.py"):
        (target / name).unlink(missing_ok=True)
    shutil.rmtree(target / "docs", ignore_errors=True)


def copy_shortlink(target: Path) -> None:
    shutil.rmtree(target / "shortlink", ignore_errors=True)
    shutil.copytree(HERE / "shortlink", target / "shortlink", ignore=shutil.ignore_patterns("__pycache__"))


def precompile(target: Path) -> None:
    # Lambda's file system is read-only, so modules without bytecode are compiled on every cold
    # start. Unchecked hashes: zip archives round timestamps, which would make checked .pyc stale.
    compileall.compile_dir(target, quiet=1, invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)


def package(target: Path, platform: str | None, dependencies: bool = True) -> None:
    if sys.version_info[:2] != RUNTIME_PYTHON:
        raise SystemExit(
            f"package the layer with Python {'.'.join(map(str, RUNTIME_PYTHON))}: the bytecode is per version"
        )
    target.mkdir(parents=True, exist_ok=True)
    if dependencies:
        install_dependencies(target, platform)
        trim_botocore(target)
        drop_build_leftovers(target)
    copy_shortlink(target)
    precompile(target)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("target", type=Path)
    parser.add_argument("--platform", help="pip platform tag of Lambda's architecture; default: this machine")
    arguments = parser.parse_args()
    package(arguments.target, arguments.platform)


if __name__ == "__main__":
    main()
