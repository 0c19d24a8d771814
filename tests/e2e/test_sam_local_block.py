"""docs/development.md's own `sam local` block (`python -m tools.developers.samlocal --serve`, your own
requests) runs as pasted where Docker runs: from a directory that looks like the repository,
in one bash, each `# →` line shown by the output. Where no Docker daemon answers (this project's
machines: no daemon runs, and no container image can be pulled), it is skipped and says so.
`make sam-local` itself is the other half: not part of make test, as it needs Docker too."""

import os
import re
import shutil
import signal
import subprocess
from pathlib import Path

import pytest

from tests.e2e.test_readme import EXPECTED, FENCE, NOT_RUN, matches, repository_view

DEVELOPMENT = Path(__file__).resolve().parents[2] / "docs" / "development.md"
SERVE = "tools.developers.samlocal --serve"
# The first run builds the stand-in base image (debootstrap) before SAM starts: minutes.
BLOCK_TIMEOUT_SECONDS = 1200


def docker_problem() -> str | None:
    """Why no Docker daemon can be used here; None when one answers."""
    if shutil.which("docker") is None:
        return "no docker command"
    info = subprocess.run(["docker", "info"], capture_output=True, text=True, timeout=60, check=False)
    if info.returncode != 0:
        return (info.stderr.strip().splitlines() or ["docker info failed"])[-1]
    return None


def serve_block() -> str:
    """The block that starts `tools.developers.samlocal --serve`, without its not-run marker."""
    blocks = [match.group(2) for match in FENCE.finditer(DEVELOPMENT.read_text()) if SERVE in match.group(2)]
    assert len(blocks) == 1, f"one block of {DEVELOPMENT.name} runs {SERVE}, not {len(blocks)}"
    first, _, rest = blocks[0].partition("\n")
    assert first.startswith(NOT_RUN), first  # the docs test leaves it to this one
    return rest


def test_the_block_waits_for_the_stack_or_its_end_and_checks_what_it_shows():
    block = serve_block()
    assert "kill -0 $!" in block  # a stack that stopped ends the wait at once
    expected = [found.group(1) for line in block.splitlines() if (found := EXPECTED.match(line))]
    assert expected[0] == "sam local ready"
    assert any('"clicks": 1' in line for line in expected)


@pytest.mark.slow
def test_the_sam_local_block_runs_as_pasted(tmp_path):
    problem = docker_problem()
    if problem is not None:
        pytest.skip(
            f"Docker is not available ({problem}): the sam local block needs a Docker daemon, and here no"
            " daemon runs and no container image can be pulled"
        )
    where = repository_view(tmp_path / "repository")
    script = tmp_path / "block.sh"
    script.write_text(serve_block())
    process = subprocess.Popen(
        ["bash", str(script)],
        cwd=where,
        env=os.environ.copy(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        output, _ = process.communicate(timeout=BLOCK_TIMEOUT_SECONDS)
    finally:
        if process.poll() is None:  # the block's own `kill %1` did not run: stop its stack
            os.killpg(process.pid, signal.SIGINT)
            process.wait(timeout=60)
    log = (where / "sam-local.log").read_text(errors="replace") if (where / "sam-local.log").exists() else ""
    for line in serve_block().splitlines():
        if found := EXPECTED.match(line):
            assert matches(found.group(1), output), f"{found.group(1)!r} not shown:\n{output}\n{log[-5000:]}"
    assert not re.search(r"^error: ", log, re.M), log[-5000:]
