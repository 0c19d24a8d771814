"""What import-linter (`make lint`, contracts in pyproject.toml) cannot see: the functions, which
are not a package, and cycles between modules of one package (imports inside functions count)."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LAYER = ROOT / "layers" / "common"


def imported_modules(source: Path) -> set[str]:
    """Every shortlink module `source` imports, at the top or inside a function."""
    imported = set()
    for node in ast.walk(ast.parse(source.read_text())):
        if isinstance(node, ast.Import):
            imported |= {alias.name for alias in node.names if alias.name.startswith("shortlink")}
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("shortlink"):
            imported |= {f"{node.module}.{alias.name}" for alias in node.names} | {node.module}
    return imported


def layer_modules() -> dict[str, Path]:
    modules = {}
    for path in (LAYER / "shortlink").rglob("*.py"):
        name = ".".join(path.relative_to(LAYER).with_suffix("").parts).removesuffix(".__init__")
        modules[name] = path
    return modules


def test_functions_reach_adapters_only_through_the_composition_root():
    # Given every function's handler module
    handlers = sorted((ROOT / "functions").glob("*/app.py"))
    assert len(handlers) >= 9
    # Then none imports an adapter: shortlink.wiring builds them
    reaching = {
        str(handler.relative_to(ROOT)): sorted(name for name in imported_modules(handler) if ".adapters" in name)
        for handler in handlers
    }
    assert {handler: names for handler, names in reaching.items() if names} == {}


def test_no_module_of_the_layer_imports_itself_through_others():
    # Given the layer's import graph, imports inside functions included
    modules = layer_modules()
    graph = {name: {other for other in imported_modules(path) if other in modules} for name, path in modules.items()}
    # When each module's imports are followed
    cycles = []
    for start in sorted(graph):
        seen: set[str] = set()
        stack: list[tuple[str, tuple[str, ...]]] = [(start, (start,))]
        while stack:
            module, path = stack.pop()
            for other in graph[module]:
                if other == start:
                    cycles.append(" -> ".join((*path, start)))
                elif other not in seen:
                    seen.add(other)
                    stack.append((other, (*path, other)))
    # Then none comes back to where it started (links <-> slugs did)
    assert cycles == []
