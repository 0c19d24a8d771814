"""`sam build` must succeed with the runtime's Python (3.13) on PATH."""

import importlib.util
import marshal
import os
import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest
from package_layer import BOTOCORE_SERVICES
from samcli.yamlhelper import yaml_parse

from tools.developers.devstack.template import nested_templates

ROOT = Path(__file__).resolve().parents[2]


def python313() -> str | None:
    """The real path of python3.13 (a pyenv shim resolves only inside the repository)."""
    found = shutil.which("python3.13")
    if not found:
        return None
    probe = subprocess.run(
        [found, "-c", "import sys; print(sys.version_info[:2] == (3, 13), sys.executable)"],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    matches, _, executable = probe.stdout.strip().partition(" ")
    return executable if probe.returncode == 0 and matches == "True" else None


@pytest.mark.slow
@pytest.mark.skipif(python313() is None, reason="sam build needs python3.13 on PATH (Lambda's runtime)")
def test_sam_build_produces_every_function_and_the_layer(tmp_path):
    sam = Path(ROOT / ".venv" / "bin" / "sam")
    result = subprocess.run(
        [
            str(sam),
            "build",
            "--template",
            "template.yaml",
            "--build-dir",
            str(tmp_path / "build"),
        ],
        cwd=ROOT,
        env={**os.environ, "LAYER_PYTHON": str(python313())},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    build = tmp_path / "build"
    functions = (
        "CreateFunction",
        "RedirectFunction",
        "ManageFunction",
        "IngestFunction",
        "DocsFunction",
        "TransferFunction",
        "ConsoleFunction",
        "AccountStatsFunction",
        "WebhookEndpointsFunction",
        "WebhooksFunction",
    )
    for function in functions:
        assert (build / function / "app.py").is_file()
    # The redirect's handler ships compiled (functions/redirect/Makefile): no cold start compiles it.
    redirect = build / "RedirectFunction"
    assert sorted(path.name for path in redirect.rglob("*") if path.is_file()) == ["app.cpython-313.pyc", "app.py"]
    bytecode = (redirect / "__pycache__" / "app.cpython-313.pyc").read_bytes()
    handler_source = (ROOT / "functions" / "redirect" / "app.py").read_bytes()
    assert bytecode[:4] == importlib.util.MAGIC_NUMBER  # the runtime's Python
    assert int.from_bytes(bytecode[4:8], "little") == 0b01  # hash-based, not checked at import
    assert bytecode[8:16] == importlib.util.source_hash(handler_source)
    assert marshal.loads(bytecode[16:]).co_filename == "/var/task/app.py"  # noqa: S302 - our own build
    # The nested stacks (the edge, the dashboard and alarms...) are built along, to be packaged.
    built = yaml_parse((build / "template.yaml").read_text())
    nested = nested_templates(ROOT / "template.yaml")
    assert {"Edge", "Monitoring", "People", "Sso"} <= set(nested)
    for name, source in ((name, path) for name, path in nested.items() if "/" not in name):
        copy = build / built["Resources"][name]["Properties"]["Location"]
        resources = yaml_parse(copy.read_text())["Resources"]
        expected = yaml_parse(source.read_text())["Resources"]
        # A nested stack's function (the pool's trigger) is built beside it: CodeUri names the build.
        nested_functions = [n for n, resource in expected.items() if resource["Type"] == "AWS::Serverless::Function"]
        for function in nested_functions:
            built_function = resources[function]
            assert (copy.parent / built_function["Properties"].pop("CodeUri") / "app.py").is_file(), function
            assert built_function.pop("Metadata") == {"SamResourceId": function}
            expected[function]["Properties"].pop("CodeUri")
        assert resources == expected, name
    layer = build / "CommonLayer" / "python"
    # The console's script and chart ship with it, its page templates with the shortlink package.
    assert {"console.js", "uPlot.iife.min.js"} <= {path.name for path in (build / "ConsoleFunction/static").iterdir()}
    assert (layer / "shortlink" / "console" / "templates" / "link.html").is_file()
    # GET /docs and /openapi.json: the document ships with its function, Swagger UI in the layer.
    assert (build / "DocsFunction" / "openapi.json").read_text() == (ROOT / "functions/docs/openapi.json").read_text()
    swagger_ui = layer / "aws_lambda_powertools" / "event_handler" / "openapi" / "swagger_ui"
    assert {"swagger-ui-bundle.min.js", "swagger-ui.min.css"} <= {path.name for path in swagger_ui.iterdir()}
    # Every module of the shortlink package ships, in its subpackage, with its bytecode.
    source = ROOT / "layers" / "common" / "shortlink"
    modules = {path.relative_to(source) for path in source.rglob("*.py")}
    assert modules == {path.relative_to(layer / "shortlink") for path in (layer / "shortlink").rglob("*.py")}
    assert (layer / "shortlink" / "links" / "model.py").is_file()
    installed = {path.name.split("-")[0].lower() for path in layer.glob("*.dist-info")}
    assert {"pynamodb", "aws_lambda_powertools", "pydantic", "boto3", "botocore", "jinja2", "markupsafe"} <= installed
    # The layer's botocore is the one pinned next to boto3, not whatever pynamodb would pull in.
    pinned = dict(
        line.split("==") for line in (ROOT / "layers/common/requirements.txt").read_text().splitlines() if "==" in line
    )
    assert (layer / f"botocore-{pinned['botocore']}.dist-info").is_dir()
    # botocore keeps only the services we call, and every module ships its bytecode.
    services = {entry.name for entry in (layer / "botocore" / "data").iterdir() if entry.is_dir()}
    assert services == BOTOCORE_SERVICES
    # Their models and endpoints trimmed, as plain JSON (tests/integration/test_layer_botocore_data.py).
    assert not list((layer / "botocore" / "data").rglob("*.json.gz"))
    for module in modules:
        assert (layer / "shortlink" / module.parent / "__pycache__" / f"{module.stem}.cpython-313.pyc").is_file()
    assert (layer / "pynamodb" / "__pycache__" / "models.cpython-313.pyc").is_file()


def test_every_environment_builds_as_the_default_does():
    # One build above speaks for every environment of samconfig.toml: their build parameters agree.
    config = tomllib.loads((ROOT / "samconfig.toml").read_text())
    builds = {name: env.get("build", {}).get("parameters") for name, env in config.items() if name != "version"}
    assert builds.pop("default") == {"cached": True, "parallel": True}
    assert all(parameters in (None, {"cached": True, "parallel": True}) for parameters in builds.values()), builds


def test_the_layer_is_built_for_the_functions_architecture():
    template = yaml_parse((ROOT / "template.yaml").read_text())
    # One parameter decides both; deployed stacks keep its default, arm64.
    architecture = {"Ref": "Architecture"}
    assert template["Parameters"]["Architecture"]["Default"] == "arm64"
    assert template["Globals"]["Function"]["Architectures"] == [architecture]
    layer = template["Resources"]["CommonLayer"]
    assert layer["Metadata"]["BuildArchitecture"] == architecture
    assert layer["Properties"]["CompatibleArchitectures"] == [architecture]
    # The Makefile's default platform is the default architecture's (make sam-local sets LAMBDA_PLATFORM).
    makefile = (ROOT / "layers" / "common" / "Makefile").read_text()
    assert "LAMBDA_PLATFORM ?= manylinux2014_aarch64" in makefile


def test_every_aws_service_the_code_calls_is_kept_in_the_layer():
    sources = [*(ROOT / "layers" / "common" / "shortlink").rglob("*.py"), *(ROOT / "functions").glob("*/app.py")]
    called = set()
    for source in sources:
        text = source.read_text()
        called |= set(re.findall(r"""client\(\s*["']([a-z0-9-]+)["']""", text))
        if "pynamodb" in text or "idempotency" in text:
            called.add("dynamodb")
        if "utilities.parameters" in text:
            called.add("ssm")
        if "Tracer(" in text:
            called.add("xray")
    assert called <= BOTOCORE_SERVICES, f"add {called - BOTOCORE_SERVICES} to package_layer.BOTOCORE_SERVICES"
