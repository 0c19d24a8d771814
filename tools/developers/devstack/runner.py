"""Runs the template's Lambda handlers in this process, in place of SAM CLI's Docker runner.

Each function behaves as one warm execution environment: its module is imported once and
its invocations never overlap (Lambda never runs two events at once in one environment).
"""

import functools
import json
import logging
import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import flask
from samcli.lib.providers.provider import Function

from tools.developers.devstack.extensions_api import ExtensionsApi
from tools.developers.devstack.lambda_runtime import Handler, LambdaContext, load_handler, load_layer
from tools.developers.devstack.local_env import own_environment

logger = logging.getLogger("devstack")

AfterResponse = Callable[[Callable[[], None]], None]


def release_when_response_closes(release: Callable[[], None]) -> None:
    """Run `release` once the HTTP response of the current Flask request has been sent."""

    def register(response: Any) -> Any:
        response.call_on_close(release)
        return response

    flask.after_this_request(register)


class InProcessRunner:
    """Implements the part of SAM CLI's LocalLambdaRunner that LocalApigwService calls."""

    def __init__(self, functions: dict[str, Function], root: Path, region: str) -> None:
        self._functions = functions
        self._root = root
        self._region = region
        self._handlers: dict[str, Handler] = {}
        self._locks = {name: threading.Lock() for name in functions}
        self.extensions = {name: ExtensionsApi(name, region) for name in functions}

    def load_all(self) -> None:
        """Import each handler as Lambda's init does, with its own Extensions API address."""
        for name, function in self._functions.items():
            for layer in function.layers:
                load_layer(self._root / (layer.codeuri or ""))
            code_dir = self._root / (function.codeuri or ".")
            os.environ["AWS_LAMBDA_RUNTIME_API"] = self.extensions[name].address
            try:
                self._handlers[name] = load_handler(
                    code_dir, function.handler or "", self._module_name(name), own_environment(function)
                )
            finally:
                del os.environ["AWS_LAMBDA_RUNTIME_API"]

    def stop(self) -> None:
        # All at once: each server notices its shutdown only at its next poll (half a second),
        # one after the other that was four seconds of every stop.
        stopping = [threading.Thread(target=api.stop) for api in self.extensions.values()]
        for thread in stopping:
            thread.start()
        for thread in stopping:
            thread.join()

    def handler(self, function_name: str) -> Handler:
        """The loaded handler itself (benchmarks time it without the runner around it)."""
        return self._handlers[function_name]

    def module(self, function_name: str) -> ModuleType:
        """The loaded handler's module (what its init made: the redirect's dispatcher)."""
        return sys.modules[self._module_name(function_name)]

    @staticmethod
    def _module_name(function_name: str) -> str:
        return f"devstack_fn_{function_name}"

    def is_debugging(self) -> bool:
        return False

    def call(self, function_name: str, event: dict[str, Any], after_response: AfterResponse | None = None) -> Any:
        """Invoke a handler and return what it returned; exceptions propagate.

        The function's extensions see the invocation once the response is out: right after the
        handler returns, or when `after_response` calls the release it is given."""
        function = self._functions[function_name]
        timeout = function.timeout or 3
        context = LambdaContext(function_name, function.memory or 128, timeout, self._region)
        extensions = self.extensions[function_name]
        with self._locks[function_name]:
            if not extensions.wait_until_idle(timeout):
                logger.warning("%s: an extension is still busy with the previous invocation", function_name)
            extensions.begin_invocation()
            try:
                return self._handlers[function_name](event, context)
            finally:
                release = functools.partial(extensions.release, timeout)
                if after_response is None:
                    release()
                else:
                    after_response(release)

    def invoke(self, function_name: str, event: str, stdout: Any = None, stderr: Any = None, **_: Any) -> None:
        """SAM CLI's runner interface: the event arrives as JSON, the result leaves on stdout."""
        try:
            result = self.call(function_name, as_api_gateway_sends(json.loads(event)), release_when_response_closes)
        except Exception as error:
            # What the Lambda runtime reports for an unhandled error; API Gateway answers 502.
            logger.exception("%s raised", function_name)
            result = {"errorMessage": str(error), "errorType": type(error).__name__}
        stdout.write_str(json.dumps(result))


def as_api_gateway_sends(event: dict[str, Any]) -> dict[str, Any]:
    """SAM CLI keeps the header names as the client wrote them; an HTTP API (payload 2.0)
    lower-cases them, and handlers rely on it."""
    if event.get("version") == "2.0" and event.get("headers"):
        event["headers"] = {name.lower(): value for name, value in event["headers"].items()}
    return event
