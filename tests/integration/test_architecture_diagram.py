"""The architecture diagram of the README and of docs/architecture.md: one drawing, naming every
function, table and queue of template.yaml and nothing else."""

import re

from tests.integration.conftest import ROOT


def mermaid_block(page: str) -> str:
    [block] = re.findall(r"```mermaid\n(.*?)```", (ROOT / page).read_text(), re.DOTALL)
    return str(block)


def test_the_readme_and_the_architecture_page_draw_the_same_diagram():
    assert mermaid_block("README.md") == mermaid_block("docs/architecture.md")


def test_the_diagram_names_every_function_table_and_queue_of_the_template(template):
    drawn = set(re.findall(r"\b[A-Z]\w*(?:Function|Table|Queue)\b", mermaid_block("README.md")))
    kinds = ("AWS::Serverless::Function", "AWS::DynamoDB::GlobalTable", "AWS::SQS::Queue")
    assert drawn == {name for kind in kinds for name in template.resources(kind)}
