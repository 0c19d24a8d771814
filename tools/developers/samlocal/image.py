"""The Lambda base image SAM CLI asks for, built here when it cannot be pulled.

`sam local` runs a ZIP function in `public.ecr.aws/lambda/<runtime>-<arch>` with its own
emulator (RIE) layered on top. Where no registry is reachable, a stand-in under that tag does:
Debian trixie's python3.13 (from `debootstrap`, the only source of a root file system here),
awslambdaric and a /var/runtime/bootstrap. The root file system is the slow part: it is cached
as a tarball and imported once as its own image; the runtime layer on top is rebuilt whenever its
recipe (bootstrap, pins) changes. An image under that tag that is not ours (pulled) is used as is.
"""

import hashlib
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from samcli.local.docker.lambda_image import LambdaImage, Runtime

HERE = Path(__file__).resolve().parent
RUNTIME = "python3.13"
SUITE = "trixie"  # Debian's release whose python3 is 3.13, Lambda's runtime
PIP_PLATFORMS = {"x86_64": "manylinux2014_x86_64", "arm64": "manylinux2014_aarch64"}
DEBIAN_ARCHITECTURES = {"x86_64": "amd64", "arm64": "arm64"}
RECIPE = (HERE / "bootstrap", HERE / "requirements-image.txt")
# Not needed to run a function; a smaller image imports and starts faster.
TRIMMED = ("usr/share/doc", "usr/share/man", "usr/share/info", "usr/share/locale", "var/cache/apt", "var/lib/apt/lists")
STAND_IN_LABEL = "shortlink.stand-in"
APT_SOURCES = (Path("/etc/apt/sources.list.d/debian.sources"), Path("/etc/apt/sources.list"))
DOCKERFILE = """FROM {rootfs}
COPY runtime/ /var/runtime/
ENV LAMBDA_TASK_ROOT=/var/task LAMBDA_RUNTIME_DIR=/var/runtime LANG=C.UTF-8
WORKDIR /var/task
LABEL {label}={recipe}
"""


def base_image_tag(architecture: str) -> str:
    """The tag SAM CLI looks for, e.g. public.ecr.aws/lambda/python:3.13-x86_64."""
    return f"{LambdaImage._INVOKE_REPO_PREFIX}/{Runtime.get_image_name_tag(RUNTIME, architecture)}"


def debian_mirror(sources: str) -> str | None:
    """The Debian archive apt already uses (its first non-security source); None for debootstrap's default."""
    for uri in re.findall(r"^(?:URIs:\s*|deb\s+(?:\[[^\]]*\]\s+)?)(\S+)", sources, flags=re.MULTILINE):
        if uri.rstrip("/").endswith("/debian"):
            return str(uri)
    return None


def recipe_digest(files: tuple[Path, ...] = RECIPE) -> str:
    return hashlib.sha256(b"".join(path.read_bytes() for path in files)).hexdigest()[:16]


def image_label(tag: str) -> str | None:
    """The stand-in label of the image `tag` ("" when the image is not ours); None when there is no such image."""
    found = subprocess.run(
        ["docker", "image", "inspect", tag, "--format", f'{{{{index .Config.Labels "{STAND_IN_LABEL}"}}}}'],
        capture_output=True,
        text=True,
        check=False,
    )
    if found.returncode != 0:
        return None
    label = found.stdout.strip()
    return "" if label == "<no value>" else label


def required_tools(*tools: str) -> None:
    """SystemExit with one line naming what to install when a tool the stand-in is built with is missing."""
    if missing := [tool for tool in tools if shutil.which(tool) is None]:
        raise SystemExit(
            f"building the Lambda base image needs {', '.join(missing)}: install it "
            f"(Debian, Ubuntu: sudo apt-get install {' '.join(missing)}), or make the image pullable"
        )


def _debootstrap(target: Path, architecture: str) -> None:
    required_tools("debootstrap")
    sources = "\n".join(path.read_text() for path in APT_SOURCES if path.is_file())
    mirror = debian_mirror(sources)
    print(f"debootstrap {SUITE} with {RUNTIME} (once; cached afterwards)...", flush=True)
    subprocess.run(
        [
            *("debootstrap", "--variant=minbase", f"--arch={DEBIAN_ARCHITECTURES[architecture]}"),
            *(f"--include={RUNTIME}", SUITE, str(target), *([mirror] if mirror else [])),
        ],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    for trimmed in TRIMMED:
        shutil.rmtree(target / trimmed, ignore_errors=True)
    (target / "var" / "task").mkdir(parents=True, exist_ok=True)


def ensure_root_file_system(architecture: str, cache_dir: Path) -> str:
    """The image of the bare root file system (debootstrapped once, then imported from the cache)."""
    tag = f"shortlink/sam-local-rootfs:{SUITE}-{RUNTIME}-{architecture}"
    if image_label(tag) is not None:
        return tag
    tarball = cache_dir / f"{SUITE}-{RUNTIME}-{architecture}-rootfs.tar"
    if not tarball.is_file():
        cache_dir.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=cache_dir) as scratch:
            root = Path(scratch) / "rootfs"
            _debootstrap(root, architecture)
            partial = tarball.with_suffix(".partial")
            subprocess.run(["tar", "-C", str(root), "-cf", str(partial), "."], check=True)
            partial.rename(tarball)
    print(f"importing {tarball} as {tag}", flush=True)
    subprocess.run(["docker", "import", str(tarball), tag], check=True, stdout=subprocess.DEVNULL)
    return tag


def ensure_base_image(architecture: str, cache_dir: Path) -> str:
    """The base image's tag, building the stand-in if it is missing or its recipe changed."""
    tag = base_image_tag(architecture)
    recipe = recipe_digest()
    if image_label(tag) in ("", recipe):
        return tag
    rootfs = ensure_root_file_system(architecture, cache_dir)
    print(f"building the stand-in {tag} (awslambdaric, bootstrap)", flush=True)
    with tempfile.TemporaryDirectory() as context:
        runtime = Path(context) / "runtime"
        subprocess.run(
            [
                *(sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--only-binary=:all:"),
                *("--platform", PIP_PLATFORMS[architecture], "--python-version", "3.13", "--implementation", "cp"),
                *("--target", str(runtime), "-r", str(HERE / "requirements-image.txt")),
            ],
            check=True,
        )
        shutil.copy2(HERE / "bootstrap", runtime / "bootstrap")
        dockerfile = DOCKERFILE.format(rootfs=rootfs, label=STAND_IN_LABEL, recipe=recipe)
        (Path(context) / "Dockerfile").write_text(dockerfile)
        subprocess.run(["docker", "build", "--quiet", "--tag", tag, context], check=True, stdout=subprocess.DEVNULL)
    return tag
