"""The `sam` command lines and the environment of `make sam-local`, in one place, so that what
the README shows is what runs (`python -m tools.developers.samlocal --serve` prints them)."""

import platform
import shutil
import subprocess
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from tools.developers.devstack.local_env import DEV_CONSOLE_SESSION_SECRET, DEV_PERMUTATION_KEY, DEV_VISITOR_SALT

# Linux reports aarch64 where Lambda says arm64.
LAMBDA_ARCHITECTURES = {"x86_64": "x86_64", "amd64": "x86_64", "aarch64": "arm64", "arm64": "arm64"}
LAYER_PLATFORMS = {"x86_64": "manylinux2014_x86_64", "arm64": "manylinux2014_aarch64"}
# The host's AWS settings must never reach a local run: real credentials would be handed to the
# containers, and a profile's endpoint or region could send their calls elsewhere.
SAM = str(Path(sys.executable).parent / "sam")  # the pinned SAM CLI of this virtualenv
HOST_AWS_VARIABLES = ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN", "AWS_CONFIG_FILE")


RUNTIME_PYTHON = "python3.13"  # Lambda's runtime: what builds the layer and compiles the redirect


def runtime_python(given: str | None, repository: Path) -> str:
    """The real path of the runtime's Python for `sam build`: `given` (LAYER_PYTHON), else
    python3.13 as found from `repository`, where pyenv's .python-version applies (sam build runs
    the functions' makefiles elsewhere, where a pyenv shim finds none); SystemExit if none."""
    if given:
        return given
    found = shutil.which(RUNTIME_PYTHON)
    probe = (
        subprocess.run(
            [found, "-c", "import sys; print(sys.version_info[:2] == (3, 13), sys.executable)"],
            capture_output=True,
            text=True,
            check=False,
            cwd=repository,
        )
        if found
        else None
    )
    if probe is not None and probe.returncode == 0 and probe.stdout.startswith("True "):
        return probe.stdout.strip().removeprefix("True ")
    raise SystemExit(
        f"sam build needs {RUNTIME_PYTHON} (Lambda's runtime) and none runs from {repository}:"
        f" install it, or set LAYER_PYTHON=/path/to/{RUNTIME_PYTHON}"
    )


def native_architecture(machine: str | None = None) -> str:
    """The Lambda architecture this host runs without emulation."""
    found = (machine or platform.machine()).lower()
    if found not in LAMBDA_ARCHITECTURES:
        raise SystemExit(f"no Lambda architecture runs natively on {found}")
    return LAMBDA_ARCHITECTURES[found]


@dataclass(frozen=True)
class SamLocal:
    architecture: str
    build_dir: Path  # sam build's output, apart from `make build`'s (other architecture, other cache)
    network: str
    api_port: int
    lambda_port: int
    host: str = "127.0.0.1"

    @property
    def api_url(self) -> str:
        return f"http://{self.host}:{self.api_port}"

    @property
    def lambda_url(self) -> str:
        return f"http://{self.host}:{self.lambda_port}"

    @property
    def env_vars_file(self) -> Path:
        return self.build_dir / "env-vars.json"

    def _parameters(self) -> list[str]:
        return ["--parameter-overrides", f"Architecture={self.architecture}"]

    def build(self) -> list[str]:
        return [
            *(SAM, "build", "--template", "template.yaml", "--cached"),
            *("--build-dir", str(self.build_dir / "build"), "--cache-dir", str(self.build_dir / "cache")),
            *self._parameters(),
        ]

    def _start(self, command: str, port: int) -> list[str]:
        # Warm containers: one execution environment per function, as in Lambda (the redirect's
        # click extension finishes after the response instead of being stopped with its container).
        # SAM names its image after the layer's name, not its content: rebuild it, or code edited
        # since the last run would be served from the old image.
        return [
            *(SAM, "local", command, "--template", str(self.build_dir / "build" / "template.yaml")),
            *("--env-vars", str(self.env_vars_file), "--docker-network", self.network),
            *("--skip-pull-image", "--force-image-build", "--warm-containers", "LAZY"),
            *("--host", self.host, "--port", str(port)),
            *self._parameters(),
        ]

    def start_api(self) -> list[str]:
        return self._start("start-api", self.api_port)

    def start_lambda(self) -> list[str]:
        return self._start("start-lambda", self.lambda_port)


def env_vars(
    endpoint: str, clicks_queue_url: str, public_base_url: str, clicks_senders: Iterable[str]
) -> dict[str, dict[str, str]]:
    """SAM's --env-vars document: the same values for every function, and the clicks queue's URL
    for the functions told it (`clicks_senders`, by logical id: the redirect)."""
    return {
        "Parameters": {
            "AWS_ENDPOINT_URL": endpoint,
            "PUBLIC_BASE_URL": public_base_url,
            "PERMUTATION_KEY": DEV_PERMUTATION_KEY,
            "VISITOR_SALT": DEV_VISITOR_SALT,
            "CONSOLE_SESSION_SECRET": DEV_CONSOLE_SESSION_SECRET,
        },
        **{function: {"CLICKS_QUEUE_URL": clicks_queue_url} for function in clicks_senders},
    }


def offline_environment(host: Mapping[str, str], region: str) -> dict[str, str]:
    """`host` without its AWS credentials, profile and endpoints, with placeholder credentials
    (which SAM passes into the containers) and `region`: nothing can reach a real account."""
    environment = {
        name: value
        for name, value in host.items()
        if name not in HOST_AWS_VARIABLES and not name.startswith("AWS_ENDPOINT_URL")
    }
    environment["AWS_ACCESS_KEY_ID"] = "local"
    environment["AWS_SECRET_ACCESS_KEY"] = "local"
    environment["AWS_DEFAULT_REGION"] = environment["AWS_REGION"] = region
    return environment


def sam_environment(host: Mapping[str, str], architecture: str, region: str, layer_python: str) -> dict[str, str]:
    """The environment of the `sam` processes: offline, and the layer built for `architecture`
    by `layer_python` (runtime_python)."""
    return {
        **offline_environment(host, region),
        "SAM_CLI_TELEMETRY": "0",
        "LAMBDA_PLATFORM": LAYER_PLATFORMS[architecture],
        "LAYER_PYTHON": layer_python,
    }
