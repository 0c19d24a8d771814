"""make sam-local's logic, without Docker: what it tells SAM, what it hands the functions, and
what it keeps away from them. The full run (Docker) is `make sam-local` itself."""

import os
import time
from pathlib import Path

import boto3
import pytest
from moto import mock_aws
from samcli.lib.providers.sam_function_provider import SamFunctionProvider
from samcli.lib.providers.sam_stack_provider import SamLocalStackProvider

from shortlink.secrets import read_secret
from tools.developers.devstack.resources import create_queues, create_tables
from tools.developers.samlocal.__main__ import main as samlocal_main
from tools.developers.samlocal.__main__ import start_lambda_sources
from tools.developers.samlocal.commands import (
    SamLocal,
    env_vars,
    native_architecture,
    offline_environment,
    runtime_python,
    sam_environment,
)
from tools.developers.samlocal.image import base_image_tag, debian_mirror, ensure_root_file_system, recipe_digest
from tools.developers.samlocal.processes import SamFailed, SamProcess, run_logged

ROOT = Path(__file__).resolve().parents[2]
LOCAL = SamLocal(
    architecture="x86_64", build_dir=Path("/b"), network="shortlink-sam-local", api_port=3001, lambda_port=3002
)


def option(command: list[str], name: str) -> str:
    return command[command.index(name) + 1]


@pytest.mark.parametrize(("machine", "architecture"), [("x86_64", "x86_64"), ("AMD64", "x86_64"), ("aarch64", "arm64")])
def test_the_native_architecture_is_the_hosts_in_lambdas_words(machine, architecture):
    assert native_architecture(machine) == architecture


def test_a_host_no_lambda_architecture_runs_on_is_refused():
    with pytest.raises(SystemExit, match="riscv64"):
        native_architecture("riscv64")


def test_every_variable_sam_is_given_is_declared_by_every_function():
    # Given the --env-vars document make sam-local writes
    queue = "http://172.18.0.1:5006/123456789012/ClicksQueue"
    document = env_vars("http://172.18.0.1:5006", queue, LOCAL.api_url, ["RedirectFunction"])
    # Then SAM applies all of it: it sets only variables a function declares (item 21)
    stacks, _ = SamLocalStackProvider.get_stacks(str(ROOT / "template.yaml"))
    for function in SamFunctionProvider(stacks).get_all():
        if function.name == "InvitationMessageFunction":
            continue  # the user pool's trigger (people.yaml) reads no variable: SAM sets it none
        assert set(document["Parameters"]) <= set(function.environment["Variables"]), function.name
        assert set(document.get(function.name, {})) <= set(function.environment["Variables"]), function.name
    assert document["RedirectFunction"] == {"CLICKS_QUEUE_URL": queue}
    assert document["Parameters"]["PUBLIC_BASE_URL"] == "http://127.0.0.1:3001"  # not https://localhost
    for secret in ("PERMUTATION_KEY", "VISITOR_SALT", "CONSOLE_SESSION_SECRET"):  # accepted, never read from SSM
        assert read_secret(document["Parameters"][secret], "", (secret, f"{secret}_PARAMETER"), secret)


def test_sam_runs_natively_on_its_own_network_ports_and_build_without_pulling():
    for command, port in ((LOCAL.start_api(), "3001"), (LOCAL.start_lambda(), "3002")):
        assert option(command, "--docker-network") == "shortlink-sam-local"
        assert option(command, "--env-vars") == "/b/env-vars.json"
        assert option(command, "--template") == "/b/build/template.yaml"
        assert option(command, "--parameter-overrides") == "Architecture=x86_64"
        assert (option(command, "--host"), option(command, "--port")) == ("127.0.0.1", port)  # make dev has 3000
        assert {"--skip-pull-image", "--force-image-build"} <= set(command)
    build = LOCAL.build()
    assert option(build, "--parameter-overrides") == "Architecture=x86_64"
    assert option(build, "--build-dir") == "/b/build"  # apart from make build's arm64 output


def test_the_host_aws_identity_and_endpoints_never_reach_sam_or_the_functions():
    host = {
        "PATH": "/usr/bin",
        "AWS_PROFILE": "prod",
        "AWS_ACCESS_KEY_ID": "AKIAREAL",
        "AWS_SECRET_ACCESS_KEY": "real",
        "AWS_SESSION_TOKEN": "token",
        "AWS_ENDPOINT_URL_DYNAMODB": "http://elsewhere",
        "AWS_REGION": "eu-west-1",
    }
    offline = offline_environment(host, "us-east-1")
    assert offline == {
        "PATH": "/usr/bin",
        "AWS_ACCESS_KEY_ID": "local",
        "AWS_SECRET_ACCESS_KEY": "local",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_REGION": "us-east-1",
    }
    # The layer is built for the functions' architecture (its Makefile's LAMBDA_PLATFORM).
    assert sam_environment(host, "x86_64", "us-east-1", "/p")["LAMBDA_PLATFORM"] == "manylinux2014_x86_64"
    assert sam_environment(host, "arm64", "us-east-1", "/p")["LAMBDA_PLATFORM"] == "manylinux2014_aarch64"


def test_every_trigger_of_the_template_is_polled_through_start_lambda_the_stats_stream_too(template, monkeypatch):
    # Given the template's tables and queues in moto, as make sam-local creates them
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    with mock_aws():
        create_tables(template, boto3.client("dynamodb"))
        queue_urls = create_queues(template, boto3.client("sqs"))
        # Then sam local polls each SQS trigger and each table's stream, as make dev does
        sources = start_lambda_sources(template, queue_urls, LOCAL.lambda_url)
    expected = {f"sqs-{trigger.function_name}" for trigger in template.sqs_triggers()}
    expected |= {f"stream-{trigger.function_name}" for trigger in template.stream_triggers()}
    assert "stream-AccountStatsFunction" in expected
    assert ({poller.name for poller in sources.pollers}, sources.without_streams) == (expected, [])


def test_the_stand_in_is_tagged_as_sam_asks_for_the_base_image():
    assert base_image_tag("x86_64") == "public.ecr.aws/lambda/python:3.13-x86_64"
    assert base_image_tag("arm64") == "public.ecr.aws/lambda/python:3.13-arm64"


@pytest.mark.parametrize(
    ("sources", "mirror"),
    [
        (
            "Types: deb\nURIs: http://mirror.example/debian-security\nSuites: bookworm-security\n\n"
            "Types: deb\nURIs: http://mirror.example/debian\nSuites: bookworm\n",
            "http://mirror.example/debian",
        ),
        ("deb [arch=amd64] http://mirror.example/debian/ bookworm main\n", "http://mirror.example/debian/"),
        ("deb https://packages.example/apt stable main\n", None),
    ],
)
def test_debootstrap_uses_the_debian_archive_apt_already_uses(sources, mirror):
    assert debian_mirror(sources) == mirror


def test_the_stand_in_is_rebuilt_when_its_recipe_changes(tmp_path):
    bootstrap = tmp_path / "bootstrap"
    bootstrap.write_text("exec python3.13 -m awslambdaric")
    before = recipe_digest((bootstrap,))
    bootstrap.write_text('exec python3.13 -m awslambdaric "$_HANDLER"')
    assert recipe_digest((bootstrap,)) != before


def pyenv_like_shim(directory: Path) -> Path:
    """A `python3.13` that works only where a .python-version is (as a pyenv shim does) and
    answers the probe with the real interpreter's path."""
    shim = directory / "bin" / "python3.13"
    shim.parent.mkdir()
    shim.write_text(
        "#!/bin/sh\n"
        '[ -f .python-version ] || { echo "pyenv: python3.13: command not found" >&2; exit 127; }\n'
        'echo "True /opt/pyenv/versions/3.13.0/bin/python3.13"\n'
    )
    shim.chmod(0o755)
    return shim.parent


def test_sam_build_gets_the_real_python313_found_from_the_repository_as_make_does(tmp_path, monkeypatch):
    # Given python3.13 only as a shim that resolves inside a directory with .python-version
    monkeypatch.setenv("PATH", str(pyenv_like_shim(tmp_path)))
    repository = tmp_path / "repository"
    repository.mkdir()
    (repository / ".python-version").write_text("3.13.0\n")
    # Then the runtime's real path is found from the repository and handed to sam build
    found = runtime_python(None, repository)
    assert found == "/opt/pyenv/versions/3.13.0/bin/python3.13"
    assert sam_environment({}, "x86_64", "us-east-1", found)["LAYER_PYTHON"] == found
    # And a LAYER_PYTHON given (make sam-local sets it) wins
    assert runtime_python("/usr/bin/python3.13", repository) == "/usr/bin/python3.13"


def test_no_python313_is_one_line_that_says_what_to_do(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(pyenv_like_shim(tmp_path)))
    with pytest.raises(SystemExit) as refused:
        runtime_python(None, tmp_path)  # no .python-version here: the shim finds none
    assert "\n" not in str(refused.value.code)
    assert "LAYER_PYTHON=/path/to/python3.13" in str(refused.value.code)


def test_no_debootstrap_is_one_line_that_names_what_to_install(tmp_path, monkeypatch, capsys):
    # Given a machine whose PATH has docker (a stub: no image of that tag) and no debootstrap
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "docker").write_text("#!/bin/sh\nexit 1\n")
    (bin_dir / "docker").chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))
    # When the stand-in's root file system is to be built
    with pytest.raises(SystemExit) as refused:
        ensure_root_file_system("x86_64", tmp_path / "cache")
    # Then one line says what to install, and nothing was left half-made
    message = str(refused.value.code)
    assert "\n" not in message
    assert "apt-get install debootstrap" in message
    assert not any((tmp_path / "cache").glob("*.tar*"))


def check_until_stopped(process: SamProcess, seconds: float = 10) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        process.check_running()
        time.sleep(0.05)


def test_a_sam_process_that_stops_is_told_with_its_log_and_one_last_line(tmp_path, capsys, monkeypatch):
    # Given a sam process that exits at once (as start-api does when its build is missing)
    log = tmp_path / "start-api.log"
    process = SamProcess(["sh", "-c", "echo 'Error: template not found'; exit 1"], 1, log, {}, tmp_path)
    # Then checking it fails, with its log's end, as soon as it has stopped
    with pytest.raises(SamFailed, match="Error: template not found"):
        check_until_stopped(process)
    # And the command's last line says what failed
    monkeypatch.setattr("tools.developers.samlocal.__main__.docker_available", lambda: None)
    monkeypatch.setattr("tools.developers.samlocal.__main__.stop_on_sigterm", lambda: None)

    def fails(serve: bool) -> None:
        process.check_running()

    monkeypatch.setattr("tools.developers.samlocal.__main__.run", fails)
    assert samlocal_main(["--serve"]) == 1
    lines = capsys.readouterr().err.splitlines()
    assert lines[-1] == f"error: sam exited with 1 (log: {log}):"
    assert "Error: template not found" in lines


@pytest.mark.slow
def test_sam_build_runs_with_the_environment_samlocal_gives_it_without_layer_python(tmp_path, monkeypatch):
    # Given no LAYER_PYTHON (the docs' `python -m tools.developers.samlocal --serve`, not make sam-local),
    # and python3.13 maybe only a pyenv shim that resolves inside the repository
    monkeypatch.delenv("LAYER_PYTHON", raising=False)
    try:
        python = runtime_python(None, ROOT)
    except SystemExit as missing:
        pytest.skip(str(missing.code))
    local = SamLocal(native_architecture(), tmp_path, "unused", 1, 2)
    # Then sam build, which runs the functions' makefiles outside the repository, succeeds
    run_logged(
        local.build(),
        tmp_path / "build.log",
        sam_environment({**os.environ}, local.architecture, "us-east-1", python),
        ROOT,
    )
    assert (tmp_path / "build" / "RedirectFunction" / "app.py").is_file()
