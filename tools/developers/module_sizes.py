"""`make lint`'s size check: no module of the layer, the functions or the tools over 400 lines,
and no handler (functions/*/app.py) over 150. A module past its limit holds more than one job:
split it by job, as the style guide asks. Each offender is named with its size; there is no
allow-list. `python -m tools.developers.module_sizes` (exit status 1 when one is over)."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MODULE_LIMIT = 400
HANDLER_LIMIT = 150
CHECKED = ("layers", "functions", "tools")


def limit_of(relative: Path) -> int:
    """A handler's limit for functions/<name>/app.py, else a module's."""
    is_handler = len(relative.parts) == 3 and relative.parts[0] == "functions" and relative.name == "app.py"
    return HANDLER_LIMIT if is_handler else MODULE_LIMIT


def oversized(root: Path = ROOT) -> list[tuple[Path, int, int]]:
    """Each Python module under CHECKED longer than its limit: (path from `root`, lines, limit)."""
    found = []
    for folder in CHECKED:
        for path in sorted((root / folder).rglob("*.py")):
            relative = path.relative_to(root)
            lines = len(path.read_text(encoding="utf-8").splitlines())
            if lines > limit_of(relative):
                found.append((relative, lines, limit_of(relative)))
    return found


def main() -> None:
    found = oversized()
    for path, lines, limit in found:
        print(f"{path}: {lines} lines, over the limit of {limit}", file=sys.stderr)
    if found:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
