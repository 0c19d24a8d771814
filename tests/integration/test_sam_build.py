"""`sam build` must succeed with the runtime's Python (3.13) on PATH."""

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def python313_available() -> bool:
    found = shutil.which("python3.13")
    if not found:
        return False
    probe = subprocess.run([found, "--version"], capture_output=True, text=True, check=False, cwd=ROOT)
    return probe.returncode == 0 and probe.stdout.startswith("Python 3.13")


@pytest.mark.slow
@pytest.mark.skipif(not python313_available(), reason="sam build needs python3.13 on PATH (Lambda's runtime)")
def test_sam_build_produces_every_function_and_the_layer(tmp_path):
    sam = Path(ROOT / ".venv" / "bin" / "sam")
    result = subprocess.run(
        [str(sam), "build", "--template", "template.yaml", "--build-dir", str(tmp_path / "build")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    build = tmp_path / "build"
    for function in ("CreateFunction", "RedirectFunction", "ManageFunction", "IngestFunction"):
        assert (build / function / "app.py").is_file()
    layer = build / "CommonLayer" / "python"
    assert (layer / "shortlink" / "links.py").is_file()
    installed = {path.name.split("-")[0].lower() for path in layer.glob("*.dist-info")}
    assert {"pynamodb", "aws_lambda_powertools", "pydantic", "boto3", "botocore"} <= installed
    # The layer's botocore is the one pinned next to boto3, not whatever pynamodb would pull in.
    pinned = dict(
        line.split("==") for line in (ROOT / "layers/common/requirements.txt").read_text().splitlines() if "==" in line
    )
    assert (layer / f"botocore-{pinned['botocore']}.dist-info").is_dir()
