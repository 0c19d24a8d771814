"""Copy edge/viewer-request.js into edge.yaml, where CloudFormation takes the edge function's
code (AWS::CloudFront::Function accepts it only inline), byte for byte:

    python -m tools.developers.edge_function_code

tests/integration/test_template.py fails while the two differ, so an edit of the file is never
deployed half-way.
"""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FUNCTION_FILE = ROOT / "edge" / "viewer-request.js"
TEMPLATE = ROOT / "edge.yaml"
INDENT = " " * 8
# The resource's FunctionCode block: every line after it that is blank or indented this deep.
BLOCK = re.compile(r"(  EdgeRedirectFunction:\n(?:    .*\n|\n)*?      FunctionCode: \|\n)((?:        .*\n|\n)*)")


def inline_copy(code: str) -> str:
    """`code` as a YAML literal block of edge.yaml reads it back."""
    return "".join(INDENT + line if line.strip() else line for line in code.splitlines(keepends=True))


def with_code(template: str, code: str) -> str:
    """`template` (edge.yaml's text) with the function's inline code replaced by `code`."""
    match = BLOCK.search(template)
    if match is None:
        raise SystemExit("edge.yaml has no EdgeRedirectFunction with a FunctionCode block")
    trailing = match.group(2)[len(match.group(2).rstrip("\n")) + 1 :]  # the blank lines after the code
    return template[: match.start(2)] + inline_copy(code) + trailing + template[match.end(2) :]


def main() -> None:
    TEMPLATE.write_text(with_code(TEMPLATE.read_text(), FUNCTION_FILE.read_text()))


if __name__ == "__main__":
    main()
