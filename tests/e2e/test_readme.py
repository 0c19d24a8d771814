"""The shell examples of the README and of docs/ run as pasted, in order, against a freshly
started local stack: the README's first, then each page of the site in the order of its nav
(mkdocs.yml), as one reader following them would.

The convention (docs/development.md, "Examples in these pages"):
- every ```sh block runs, in that order, as one shell session would run it (variables set by one
  block are seen by the next, also across pages), from a directory that looks like the repository;
- a block whose first line is `# (not run by make test: <why>)` is not run;
- a `# → <text>` line after a command is what the output of the commands before it (since the
  previous `# →` line) must show on one of its lines; `…` stands for anything, spaces do not count;
- a command that fails (exit status, or any part of a pipeline) fails the test.

The one liberty taken: the examples' `127.0.0.1:3000` becomes the port of the test's own stack
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
from typing import Any

import pytest
from mkdocs.config import load_config

from tests.e2e.running_stack import ROOT, RunningStack

README = ROOT / "README.md"
SITE = ROOT / "mkdocs.yml"
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
    block: int  # the number of the file's ```sh block, from 1
    line: int  # the file's line the step starts on
    script: str
    expected: list[str] = field(default_factory=list)
    source: str = "README.md"

    def where(self) -> str:
        return f"{self.source} block {self.block} (line {self.line})"


def readme_steps(text: str, source: str = "README.md") -> Iterator[Step]:
    """A file's runnable steps: each runs the commands up to its `# →` lines, which it checks."""
    for number, fence in enumerate(FENCE.finditer(text), start=1):
        body = textwrap.dedent(fence.group(2))
        if body.startswith(NOT_RUN):
            continue
        first_line = text.count("\n", 0, fence.start(2)) + 1
        step = Step(number, first_line, "", source=source)
        for offset, line in enumerate(body.splitlines()):
            expected = EXPECTED.match(line)
            if expected:
                step.expected.append(expected.group(1))
            elif step.expected:  # a command after expectations starts the next step
                yield step
                step = Step(number, first_line + offset, "", source=source)
            if not expected:
                step.script += line + "\n"
        if step.script.strip() or step.expected:
            yield step


def nav_pages(entries: list[Any]) -> Iterator[str]:
    """The nav's pages in order, sections walked depth first: `- Title: page.md` or `- page.md`."""
    for entry in entries:
        for value in entry.values() if isinstance(entry, dict) else [entry]:
            if isinstance(value, list):
                yield from nav_pages(value)
            else:
                yield value


def site_pages() -> list[Path]:
    """The site's pages in the order of its nav (mkdocs.yml)."""
    site = load_config(config_file=str(SITE))
    assert site.nav, "mkdocs.yml has no nav"
    return [Path(site.docs_dir) / page for page in nav_pages(site.nav)]


def documented_steps() -> Iterator[Step]:
    """The README's steps, then those of each page of the site, in the nav's order."""
    yield from readme_steps(README.read_text())
    for page in site_pages():
        yield from readme_steps(page.read_text(), str(page.relative_to(ROOT)))


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
def fresh_stack() -> Iterator[RunningStack]:
    started = RunningStack.start()
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


def test_the_nav_gives_every_page_in_order():
    nav = [{"Getting started": "index.md"}, {"Guides": [{"API": "api.md"}, "links.md"]}, {"Cost": "cost.md"}]
    assert list(nav_pages(nav)) == ["index.md", "api.md", "links.md", "cost.md"]
    pages = site_pages()
    assert pages[0] == ROOT / "docs" / "index.md"
    assert sorted(pages) == sorted((ROOT / "docs").glob("*.md")), "a page of docs/ is not in the nav"


def test_the_documented_examples_run_as_pasted(fresh_stack, tmp_path):
    steps = list(documented_steps())
    assert len(steps) >= 20, "the examples of the README and docs/ were not found"
    shell = Shell(tmp_path, repository_view(tmp_path / "repo"), {"MOTO_PORT": str(fresh_stack.moto_port)})
    port = f"127.0.0.1:{fresh_stack.port}"
    for step in steps:
        output, failures = shell.run(step.script.replace(README_PORT, port))
        shown = f"{step.where()}:\n{step.script}--- its output:\n{output}"
        assert not failures, f"{shown}--- failed: {failures}"
        for expected in step.expected:
            wanted = expected.replace(README_PORT, port)
            assert matches(wanted, output), f"{shown}--- expected a line showing: {wanted}"
