"""What the local stack needs from template.yaml, read through SAM CLI's own providers.

SAM CLI reads the nested stacks too (each AWS::Serverless::Application with a local Location,
such as monitoring.yaml and edge.yaml): their resources and functions count as the main
template's. SAM CLI resolves `!Ref` of a resource to its logical id and `!GetAtt X.Arn` to an ARN whose
last segment is the logical id (as `sam local` does); the local stack names every table and
queue after its logical id, so those values resolve by name alone.
"""

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

os.environ.setdefault("SAM_CLI_TELEMETRY", "0")

from samcli.lib.providers.api_provider import ApiProvider
from samcli.lib.providers.provider import Api, Function, Stack
from samcli.lib.providers.sam_function_provider import SamFunctionProvider
from samcli.lib.providers.sam_stack_provider import SamLocalStackProvider
from samcli.yamlhelper import yaml_parse

QUEUE_TYPE = "AWS::SQS::Queue"
# Resources that include another template, whose Location may be a file beside this one.
NESTED_STACK_TYPES = ("AWS::Serverless::Application", "AWS::CloudFormation::Stack")

# A global table is, locally, one table per region, as its properties describe it.
GLOBAL_TABLE_TYPE = "AWS::DynamoDB::GlobalTable"
TABLE_TYPES = ("AWS::DynamoDB::Table", GLOBAL_TABLE_TYPE)


@dataclass(frozen=True)
class SqsTrigger:
    function_name: str
    queue_id: str
    batch_size: int
    reports_item_failures: bool


@dataclass(frozen=True)
class StreamTrigger:
    function_name: str
    table_id: str
    batch_size: int


@dataclass
class LocalTemplate:
    root: Path
    stacks: list[Stack]
    functions: dict[str, Function] = field(default_factory=dict)

    @classmethod
    def load(cls, template_path: Path) -> "LocalTemplate":
        stacks, _ = SamLocalStackProvider.get_stacks(str(template_path))
        functions = {function.name: function for function in SamFunctionProvider(stacks).get_all()}
        return cls(root=template_path.parent, stacks=stacks, functions=functions)

    def resources(self, resource_type: str) -> dict[str, dict[str, Any]]:
        """Logical id → Properties of every resource of this type."""
        return {
            logical_id: resource.get("Properties", {})
            for stack in self.stacks
            for logical_id, resource in stack.resources.items()
            if resource.get("Type") == resource_type
        }

    def stack(self, stack_path: str) -> Stack:
        """One nested stack by its path of logical ids (`Edge`), or the main one (``)."""
        [stack] = [stack for stack in self.stacks if stack.stack_path == stack_path]
        return stack

    def properties(self, logical_id: str) -> dict[str, Any]:
        """Properties of one resource of the main template (parameters resolved to their defaults)."""
        properties: dict[str, Any] = self.stacks[0].resources[logical_id].get("Properties", {})
        return properties

    def parameter_default(self, name: str) -> Any:
        """What one of the main template's parameters is when a deploy does not override it."""
        return self.stacks[0].template_dict["Parameters"][name].get("Default")

    def api(self) -> Api:
        return ApiProvider(self.stacks, cwd=str(self.root)).api

    def sqs_triggers(self) -> list[SqsTrigger]:
        triggers = []
        for function in self.functions.values():
            for event in (function.events or {}).values():
                if event.get("Type") != "SQS":
                    continue
                properties = event["Properties"]
                triggers.append(
                    SqsTrigger(
                        function_name=function.name,
                        queue_id=logical_id_of(properties["Queue"]),
                        batch_size=int(properties.get("BatchSize", 10)),
                        reports_item_failures="ReportBatchItemFailures" in properties.get("FunctionResponseTypes", []),
                    )
                )
        return triggers

    def sqs_trigger(self, function_name: str) -> SqsTrigger:
        """The one SQS trigger of this function (ingest's clicks queue, the webhooks' deliveries)."""
        [trigger] = [trigger for trigger in self.sqs_triggers() if trigger.function_name == function_name]
        return trigger

    def stream_triggers(self) -> list[StreamTrigger]:
        """The functions fed by a table's DynamoDB stream."""
        return [
            StreamTrigger(
                function_name=function.name,
                table_id=stream_table_of(event["Properties"]["Stream"]),
                batch_size=int(event["Properties"].get("BatchSize", 100)),
            )
            for function in self.functions.values()
            for event in (function.events or {}).values()
            if event.get("Type") == "DynamoDB"
        ]

    def stream_trigger(self, function_name: str) -> StreamTrigger:
        """The stream that feeds `function_name` (one function, one stream)."""
        (trigger,) = [each for each in self.stream_triggers() if each.function_name == function_name]
        return trigger


def nested_templates(template_path: Path) -> dict[str, Path]:
    """Logical id → file of each nested stack of a template whose Location is a local file,
    and theirs in turn (ids joined by `/`, as SAM CLI's stack paths)."""
    resources = yaml_parse(template_path.read_text()).get("Resources", {})
    found: dict[str, Path] = {}
    for logical_id, resource in resources.items():
        if resource.get("Type") not in NESTED_STACK_TYPES:
            continue
        properties = resource.get("Properties", {})
        location = properties.get("Location", properties.get("TemplateURL"))
        if not isinstance(location, str) or "://" in location:
            continue  # an application from the Serverless Application Repository, or on S3
        path = template_path.parent / location
        found[logical_id] = path
        found |= {f"{logical_id}/{inner}": inner_path for inner, inner_path in nested_templates(path).items()}
    return found


def stream_table_of(reference: Any) -> str:
    """The table's logical id in `!GetAtt Table.StreamArn`, resolved by SAM CLI or not."""
    if isinstance(reference, dict):
        # `!If [a stream named by a parameter, the table's]` (template.yaml's regions): the table's
        [reference] = [branch for branch in reference.get("Fn::If", [None, reference])[1:] if "Fn::GetAtt" in branch]
        return str(reference["Fn::GetAtt"][0])
    return logical_id_of(str(reference)).split("/")[0]


def logical_id_of(reference: str) -> str:
    """The logical id inside a value SAM CLI resolved from `!Ref X` or `!GetAtt X.Arn`."""
    return reference.rsplit(":", 1)[-1]
