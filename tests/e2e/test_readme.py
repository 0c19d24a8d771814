"""The README's shell examples run as pasted, in order, against a freshly started local stack.

The convention (README, "Examples in this README"):
- every ```sh block runs, in README order, as one shell session would run it (variables set by one
  block are seen by the next), from a directory that looks like the repository;
- a block whose first line is `# (not run by make test: <why>)` is not run;
- a `# → <text>` line after a command is what the output of the commands before it (since the
  previous `# →` line) must show on one of its lines; `…` stands for anything, spaces do not count;
- a command that fails (exit status, or any part of a pipeline) fails the test.

The one liberty taken: the README's `127.0.0.1:3000` becomes the port of the test's own stack
(and the admin command finds that stack's MOTO_PORT in the environment), so that the test never
needs port 3000 free.
"""

import os
import re
import subprocess
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.e2e.localstack import ROOT, LocalStack

README = ROOT / "README.md"
FENCE = re.compile(r"^( *)```sh\n(.*?)^\1```$", re.S | re.M)  # indented too (blocks in lists)
NOT_RUN = "# (not run by make test:"
EXPECTED = re.compile(r"^\s*# → (.*)$")
README_PORT = "127.0.0.1:3000"
STEP_TIMEOUT = 90

# Runs one step in a fresh bash that takes over the variables of the steps before it (every
# assignment is exported: `set -a`) and lists the commands that failed.
DRIVER = """set -a -o pipefail
source "$README_STATE"
exec 3>"$README_FAILED"
trap 'printf "%s\\n" "$BASH_COMMAND" >&3' ERR
source "$README_STEP" </dev/null
trap - ERR
export -p > "$README_STATE"
"""


@dataclass
class Step:
    block: int  # the number of the README's ```sh block, from 1
    line: int  # the README line the step starts on
    script: str
    expected: list[str] = field(default_factory=list)

    def where(self) -> str:
        return f"README.md block {self.block} (line {self.line})"


def readme_steps(text: str) -> Iterator[Step]:
    """The README's runnable steps: each runs the commands up to its `# →` lines, which it checks."""
    for number, fence in enumerate(FENCE.finditer(text), start=1):
        body = textwrap.dedent(fence.group(2))
        if body.startswith(NOT_RUN):
            continue
        first_line = text.count("\n", 0, fence.start(2)) + 1
        step = Step(number, first_line, "")
        for offset, line in enumerate(body.splitlines()):
            expected = EXPECTED.match(line)
            if expected:
                step.expected.append(expected.group(1))
            elif step.expected:  # a command after expectations starts the next step
                yield step
                step = Step(number, first_line + offset, "")
            if not expected:
                step.script += line + "\n"
        if step.script.strip() or step.expected:
            yield step


def matches(expected: str, output: str) -> bool:
    """Whether a line of the output shows `expected`; spaces do not count (`{"a": 1}` is `{"a":1}`)."""
    pattern = ".*".join(re.escape(re.sub(r"\s", "", part)) for part in expected.split("…"))
    return any(re.search(pattern, re.sub(r"\s", "", line)) for line in output.splitlines())


def repository_view(directory: Path) -> Path:
    """A directory whose entries link to the repository's: the examples find `.venv`, `tools`
    and the rest where the README says, and the files they write land here."""
    directory.mkdir()
    for entry in ROOT.iterdir():
        if entry.name not in {".git", "node_modules"}:
            (directory / entry.name).symlink_to(entry)
    return directory


def test_the_convention_reads_steps_and_expectations():
    text = "\n".join(
        [
            "```sh",
            "# (not run by make test: it deploys)",
            "sam deploy",
            "```",
            "  ```sh",
            "  A=1",
            "  echo $A",
            "  # → 1",
            "  echo done  # no expectation",
            "  ```",
        ]
    )
    steps = list(readme_steps(text))
    assert [(s.block, s.line, s.script, s.expected) for s in steps] == [
        (2, 6, "A=1\necho $A\n", ["1"]),
        (2, 9, "echo done  # no expectation\n", []),
    ]
    assert matches('{"code": "…", "url": "https://e.x/"', 'x {"code": "Ab3", "url": "https://e.x/", "t": 1}')
    assert matches('{"a": 1, …}', 'answer: {"a":1,"b":2}')
    assert not matches("HTTP/1.1 302 …", "HTTP/1.1 404 NOT FOUND")


@pytest.fixture(scope="module")
def fresh_stack() -> Iterator[LocalStack]:
    started = LocalStack.start()
    assert started.ready, f"local stack did not start:\n{started.output()}"
    yield started
    assert started.stop() == 0, started.output()


@dataclass
class Shell:
    """One shell session as the README's reader has it, one bash per step (see DRIVER)."""

    scratch: Path
    cwd: Path
    variables: dict[str, str]

    def __post_init__(self) -> None:
        (self.scratch / "state.sh").write_text("")

    def run(self, script: str) -> tuple[str, list[str]]:
        """The step's output and the commands of it that failed."""
        (self.scratch / "step.sh").write_text(script)
        files = {"README_STATE": "state.sh", "README_FAILED": "failed.txt", "README_STEP": "step.sh"}
        paths = {variable: str(self.scratch / name) for variable, name in files.items()}
        ran = subprocess.run(
            ["bash", "--norc", "--noprofile", "-c", DRIVER],
            cwd=self.cwd,
            env={"PATH": os.environ["PATH"], "HOME": str(self.scratch), "LANG": "C.UTF-8", **self.variables, **paths},
            capture_output=True,
            text=True,
            timeout=STEP_TIMEOUT,
        )
        # `source ...` itself is listed when the step's last command failed or the step is no valid bash.
        failures = (self.scratch / "failed.txt").read_text().splitlines()
        return ran.stdout + ran.stderr, failures if ran.returncode == 0 else [*failures, f"exit {ran.returncode}"]


def test_the_shell_carries_variables_and_names_what_failed(tmp_path):
    shell = Shell(tmp_path, tmp_path, {})
    assert shell.run("A=1\necho $A\n") == ("1\n", [])
    assert shell.run("echo $A\n") == ("1\n", [])
    output, failures = shell.run("false\necho hi | grep -q nope\necho after\n")
    assert output == "after\n"
    assert failures == ["false", "grep -q nope"]
    assert shell.run("if then\n")[1]
    assert shell.run("curl --definitely-not-an-option 2>/dev/null\n")[1]


def test_the_readme_examples_run_as_pasted(fresh_stack, tmp_path):
    steps = list(readme_steps(README.read_text()))
    assert len(steps) >= 20, "the README's examples were not found"
    shell = Shell(tmp_path, repository_view(tmp_path / "repo"), {"MOTO_PORT": str(fresh_stack.moto_port)})
    port = f"127.0.0.1:{fresh_stack.port}"
    for step in steps:
        output, failures = shell.run(step.script.replace(README_PORT, port))
        shown = f"{step.where()}:\n{step.script}--- its output:\n{output}"
        assert not failures, f"{shown}--- failed: {failures}"
        for expected in step.expected:
            wanted = expected.replace(README_PORT, port)
            assert matches(wanted, output), f"{shown}--- expected a line showing: {wanted}"
