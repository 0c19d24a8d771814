"""Cold starts: a fresh process each time, from the handler's import to its first 302, for our
layer as `sam build` packages it and the naive handler on stock packages and on our layer."""

import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tools.developers.bench.harness import ROOT, progress

COLD_STARTS = 11


def lambda_packages() -> Path:
    """The layer as `sam build` packages it (layers/common/package_layer.py), for this machine:
    pinned dependencies, botocore trimmed, bytecode precompiled. Dependencies are reinstalled
    only when the requirements or the packaging change; shortlink is copied afresh each run."""
    from package_layer import package

    requirements = ROOT / "layers" / "common" / "requirements.txt"
    recipe = requirements.read_text() + (ROOT / "layers" / "common" / "package_layer.py").read_text()
    target = ROOT / "bench-results" / "lambda-packages"
    stamp = target / ".recipe"
    fresh = not stamp.is_file() or stamp.read_text() != recipe
    if fresh:
        progress("packaging the layer for the cold-start runs")
        shutil.rmtree(target, ignore_errors=True)
    package(target, platform=None, dependencies=fresh)
    stamp.write_text(recipe)
    return target


def stock_packages() -> Path:
    """The same pinned packages as pip installs them, untrimmed: what a naive function gets from
    the runtime's boto3."""
    requirements = ROOT / "layers" / "common" / "requirements.txt"
    target = ROOT / "bench-results" / "stock-packages"
    stamp = target / ".requirements"
    if not stamp.is_file() or stamp.read_text() != requirements.read_text():
        progress("installing the stock packages for the naive cold starts")
        shutil.rmtree(target, ignore_errors=True)
        command = [sys.executable, "-m", "pip", "install", "--quiet", "--target", str(target), "-r", str(requirements)]
        subprocess.run(command, check=True, timeout=600)
        stamp.write_text(requirements.read_text())
    return target


def measure_cold_starts(code: str) -> dict[str, Any]:
    """A fresh process each time, to the first 302; the variants take turns.

    - ours: our layer as packaged for Lambda;
    - naive: the naive handler on stock packages (boto3 as the runtime ships it);
    - naive_on_our_layer: the naive handler on our packaging, to show what the packaging alone
      is worth."""
    ours_path = os.pathsep.join([str(lambda_packages()), str(ROOT)])
    stock_path = os.pathsep.join([str(stock_packages()), str(ROOT)])
    variants = {"ours": ("ours", ours_path), "naive": ("naive", stock_path), "naive_on_our_layer": ("naive", ours_path)}
    progress(f"cold starts x{COLD_STARTS} each")
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in variants}
    for _ in range(COLD_STARTS):
        for name, (handler, path) in variants.items():
            began = time.perf_counter()
            child = subprocess.run(
                [sys.executable, "-S", "-m", "tools.developers.bench.cold_start", handler, code],
                cwd=ROOT,
                env={**os.environ, "PYTHONPATH": path},
                capture_output=True,
                text=True,
                timeout=120,
                check=True,
            )
            measured = json.loads(child.stdout.strip().splitlines()[-1])
            runs[name].append({**measured, "process_wall_ms": (time.perf_counter() - began) * 1000})

    def median(which: str, field: str) -> float:
        return round(statistics.median(run[field] for run in runs[which]), 1)

    fields = ("init_ms", "first_invoke_ms", "total_ms", "process_wall_ms")
    result: dict[str, Any] = {which: {field: median(which, field) for field in fields} for which in runs}
    result["runs"] = COLD_STARTS
    result["ratio_ours_to_naive"] = round(median("ours", "total_ms") / median("naive", "total_ms"), 3)
    result["ratio_ours_to_naive_on_our_layer"] = round(
        median("ours", "total_ms") / median("naive_on_our_layer", "total_ms"), 3
    )
    return result
