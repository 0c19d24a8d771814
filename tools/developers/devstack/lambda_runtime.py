"""What Lambda's Python runtime gives a handler: its module imported from the code directory,
and a context object. Standard library only, so that a cold-start measurement can use it
without importing anything the handler itself would import."""

import importlib.util
import os
import sys
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

Handler = Callable[[dict[str, Any], Any], Any]


def load_layer(layer_dir: Path) -> None:
    """Make each package of a layer's folder importable by its name, as Lambda's /opt/python
    makes it, without adding the folder to sys.path: the package is imported from there by
    importlib (its submodules follow its __path__). One already imported from another folder
    (an editable install of another checkout) is an error, not silently the one that runs."""
    for init in sorted(layer_dir.glob("*/__init__.py")):
        name = init.parent.name
        loaded = sys.modules.get(name)
        if loaded is not None:
            if [os.path.realpath(path) for path in getattr(loaded, "__path__", [])] != [os.path.realpath(init.parent)]:
                raise ImportError(f"{name} is already imported from {list(loaded.__path__)}, not from {layer_dir}")
            continue
        spec = importlib.util.spec_from_file_location(name, init, submodule_search_locations=[str(init.parent)])
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot load {init}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[name]
            raise


def load_handler(code_dir: Path, handler: str, module_alias: str, environment: Mapping[str, str] = {}) -> Handler:
    """Import `module.function` from `code_dir` under a unique module name, with `environment`
    (the function's own variables, such as its service name) set while its module initialises."""
    module_path, _, function_name = handler.rpartition(".")
    source = code_dir / (module_path.replace(".", "/") + ".py")
    spec = importlib.util.spec_from_file_location(module_alias, source)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {source}")
    module: ModuleType = importlib.util.module_from_spec(spec)
    sys.modules[module_alias] = module
    before = {name: os.environ.get(name) for name in environment}
    os.environ.update(environment)
    try:
        spec.loader.exec_module(module)
    finally:
        for name, value in before.items():
            if value is None:
                del os.environ[name]
            else:
                os.environ[name] = value
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
