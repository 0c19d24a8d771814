"""Runs the template's Lambda handlers in this process, in place of SAM CLI's Docker runner.

Each function behaves as one warm execution environment: its module is imported once and
its invocations never overlap (Lambda never runs two events at once in one environment).
"""

import functools
import importlib.util
import json
import logging
import os
import sys
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import flask
from samcli.lib.providers.provider import Function

from tools.devstack.extensions_api import ExtensionsApi

logger = logging.getLogger("devstack")

Handler = Callable[[dict[str, Any], Any], Any]
AfterResponse = Callable[[Callable[[], None]], None]


def release_when_response_closes(release: Callable[[], None]) -> None:
    """Run `release` once the HTTP response of the current Flask request has been sent."""

    def register(response: Any) -> Any:
        response.call_on_close(release)
        return response

    flask.after_this_request(register)


def load_handler(code_dir: Path, handler: str, module_alias: str) -> Handler:
    """Import `module.function` from `code_dir` under a unique module name."""
    module_path, _, function_name = handler.rpartition(".")
    source = code_dir / (module_path.replace(".", "/") + ".py")
    spec = importlib.util.spec_from_file_location(module_alias, source)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {source}")
    module: ModuleType = importlib.util.module_from_spec(spec)
    sys.modules[module_alias] = module
    spec.loader.exec_module(module)
    loaded: Handler = getattr(module, function_name)
    return loaded


@dataclass
class LambdaContext:
    """The attributes of the Lambda runtime's context object that handlers and Powertools read."""

    function_name: str
    memory_limit_in_mb: int
    timeout_seconds: int
    region: str
    aws_request_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    function_version: str = "$LATEST"
    _started: float = field(default_factory=time.monotonic)

    @property
    def invoked_function_arn(self) -> str:
        return f"arn:aws:lambda:{self.region}:123456789012:function:{self.function_name}"

    @property
    def log_group_name(self) -> str:
        return f"/aws/lambda/{self.function_name}"

    @property
    def log_stream_name(self) -> str:
        return "local"

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._started + self.timeout_seconds - time.monotonic()) * 1000))


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
                layer_dir = str(self._root / (layer.codeuri or ""))
                if layer_dir not in sys.path:
                    sys.path.insert(0, layer_dir)
            code_dir = self._root / (function.codeuri or ".")
            os.environ["AWS_LAMBDA_RUNTIME_API"] = self.extensions[name].address
            try:
                self._handlers[name] = load_handler(code_dir, function.handler or "", f"devstack_fn_{name}")
            finally:
                del os.environ["AWS_LAMBDA_RUNTIME_API"]

    def stop(self) -> None:
        for api in self.extensions.values():
            api.stop()

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
            result = self.call(function_name, json.loads(event), after_response=release_when_response_closes)
        except Exception as error:
            # What the Lambda runtime reports for an unhandled error; API Gateway answers 502.
            logger.exception("%s raised", function_name)
            result = {"errorMessage": str(error), "errorType": type(error).__name__}
        stdout.write_str(json.dumps(result))
