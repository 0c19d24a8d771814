"""The `sam` processes of a local run: started in their own process group, logged to a file,
waited for until they listen, stopped as Ctrl-C stops them (SAM then removes its containers)."""

import signal
import socket
import subprocess
import time
from pathlib import Path

READY_POLLS = 240  # SAM reads the template and builds its images before it listens
READY_POLL_SECONDS = 0.5
STOP_SECONDS = 30


class SamFailed(SystemExit):
    pass


def log_tail(log: Path, lines: int = 30) -> str:
    return "\n".join(log.read_text(errors="replace").splitlines()[-lines:]) if log.is_file() else ""


def run_logged(command: list[str], log: Path, environment: dict[str, str], cwd: Path) -> None:
    """Run to completion; on failure, the end of its log in the error."""
    with log.open("w") as output:
        finished = subprocess.run(command, stdout=output, stderr=subprocess.STDOUT, env=environment, cwd=cwd)
    if finished.returncode != 0:
        raise SamFailed(f"{' '.join(command[:3])} failed (log: {log}):\n{log_tail(log)}")


class SamProcess:
    def __init__(self, command: list[str], port: int, log: Path, environment: dict[str, str], cwd: Path) -> None:
        self.port = port
        self.log = log
        with log.open("w") as output:
            self._process = subprocess.Popen(
                command, stdout=output, stderr=subprocess.STDOUT, env=environment, cwd=cwd, start_new_session=True
            )

    def check_running(self) -> None:
        """SamFailed, with the end of its log, once the process has exited."""
        if self._process.poll() is not None:
            raise SamFailed(f"sam exited with {self._process.returncode} (log: {self.log}):\n{log_tail(self.log)}")

    def wait_until_listening(self, host: str) -> None:
        for _ in range(READY_POLLS):
            self.check_running()
            with socket.socket() as probe:
                if probe.connect_ex((host, self.port)) == 0:
                    return
            time.sleep(READY_POLL_SECONDS)
        raise SamFailed(f"sam does not listen on {host}:{self.port} (log: {self.log}):\n{log_tail(self.log)}")

    def stop(self) -> None:
        if self._process.poll() is not None:
            return
        self._process.send_signal(signal.SIGINT)
        try:
            self._process.wait(timeout=STOP_SECONDS)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
