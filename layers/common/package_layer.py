"""Package the common layer: pinned dependencies, the shortlink package, botocore trimmed to the
services we call, everything precompiled for the runtime's Python.

    python3.13 package_layer.py TARGET [--platform manylinux2014_x86_64]

`sam build` runs it through this directory's Makefile (BuildMethod: makefile); `make bench`
runs it for the host to measure cold starts with exactly what Lambda loads. Standard library only.

Why trim botocore: creating a client lists every service directory in botocore/data (about 440
directories, thousands of stat calls) before it loads the one it needs. Keeping only our services
takes about 30 ms off a cold start here and 25 MB off the layer.
"""

import argparse
import compileall
import py_compile
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
RUNTIME_PYTHON = (3, 13)
# Every AWS service the functions call, through boto3, pynamodb or Powertools. A client for a
# service not listed here fails with UnknownServiceError: add it here first.
BOTOCORE_SERVICES = frozenset(
    {
        "dynamodb",  # links, keys, counters, click stats (pynamodb), Powertools Idempotency
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


def trim_botocore(target: Path) -> None:
    data = target / "botocore" / "data"
    for entry in data.iterdir():
        if entry.is_dir() and entry.name not in BOTOCORE_SERVICES:
            shutil.rmtree(entry)


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
