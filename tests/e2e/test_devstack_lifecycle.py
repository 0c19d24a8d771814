"""The local stack says clearly when its port is taken, and stops cleanly on Ctrl-C."""

import signal

from tests.e2e.localstack import LocalStack


def test_a_taken_port_is_reported_clearly(stack):
    second = LocalStack.start(timeout=60, PORT=str(stack.port))
    assert second.process.wait(timeout=60) == 2
    assert f"port {stack.port} is already in use" in second.output()


def test_ctrl_c_stops_cleanly_and_a_key_is_generated_when_none_is_given():
    started = LocalStack.start()
    try:
        assert started.ready, started.output()
        assert started.api_key.startswith("sl_")
        assert started.request("GET", "/nothing-here").status == 404
    finally:
        code = started.stop(signal.SIGINT)
    assert code == 0, started.output()
    assert "Stopped." in started.output()
    assert "Traceback" not in started.output()
