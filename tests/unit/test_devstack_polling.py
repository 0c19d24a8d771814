"""The local stacks' event-source pollers: polled until stopped, through a failed poll."""

import logging

import pytest

from tools.developers.devstack.polling import Poller


class ScriptedPoller(Poller):
    """Answers each poll from a script (a count, or an error to raise); stops when it runs out."""

    def __init__(self, script: list[int | Exception]) -> None:
        super().__init__("scripted", "the scripted queue", interval=0)
        self._script = script
        self.polls = 0

    def poll_once(self) -> int:
        self.polls += 1
        answer = self._script[self.polls - 1]
        if self.polls == len(self._script):
            self.stopping.set()
        if isinstance(answer, Exception):
            raise answer
        return answer


def test_a_failed_poll_is_logged_and_polling_goes_on_until_stopped(caplog: pytest.LogCaptureFixture) -> None:
    # Given a source whose second poll fails
    poller = ScriptedPoller([3, RuntimeError("throttled"), 0, 2])
    # When it runs (in this thread) until it is stopped
    with caplog.at_level(logging.ERROR, logger="devstack"):
        poller.run()
    # Then every poll ran, and the failure was logged once, naming the source
    assert poller.polls == 4
    assert [record.getMessage() for record in caplog.records] == ["polling the scripted queue failed"]


def test_a_stopped_poller_polls_no_more() -> None:
    poller = ScriptedPoller([1])
    poller.stopping.set()
    poller.run()
    assert poller.polls == 0
