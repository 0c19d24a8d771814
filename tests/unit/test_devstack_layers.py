"""The local stack imports a layer's packages from the layer's folder, as Lambda does from /opt,
without putting the folder on sys.path; a package already imported from elsewhere is refused."""

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tools.developers.devstack.lambda_runtime import load_layer


@pytest.fixture
def layer(tmp_path: Path) -> Iterator[Path]:
    package = tmp_path / "layer" / "devstack_layer_probe"
    (package / "inner").mkdir(parents=True)
    (package / "__init__.py").write_text("LOADS = 1\n")
    (package / "inner" / "__init__.py").write_text("")
    (package / "inner" / "answer.py").write_text("from devstack_layer_probe import LOADS\nVALUE = 42 + LOADS\n")
    yield tmp_path / "layer"
    for name in [name for name in sys.modules if name.startswith("devstack_layer_probe")]:
        del sys.modules[name]


def test_a_layers_package_and_its_submodules_import_by_name_from_its_folder(layer: Path) -> None:
    path_before = list(sys.path)
    load_layer(layer)
    answer = importlib.import_module("devstack_layer_probe.inner.answer")
    assert answer.VALUE == 43
    assert Path(answer.__file__ or "").is_relative_to(layer)
    assert sys.path == path_before
    # A second function with the same layer finds it loaded, once
    load_layer(layer)
    assert sys.modules["devstack_layer_probe"].LOADS == 1


def test_a_package_of_the_same_name_imported_from_elsewhere_is_refused(layer: Path, tmp_path: Path) -> None:
    other = tmp_path / "other" / "devstack_layer_probe"
    other.mkdir(parents=True)
    (other / "__init__.py").write_text("")
    load_layer(tmp_path / "other")
    with pytest.raises(ImportError, match="already imported from"):
        load_layer(layer)
