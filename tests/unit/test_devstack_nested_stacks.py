"""The local stack reads the nested stacks a template includes from local files (edge.yaml,
monitoring.yaml, and any added later) as SAM CLI does: their functions, tables, queues and
triggers count as the main template's, named by their logical ids."""

from pathlib import Path

from tools.developers.devstack.template import LocalTemplate, nested_templates

MAIN = """
AWSTemplateFormatVersion: "2010-09-09"
Transform: AWS::Serverless-2016-10-31
Resources:
  Things:
    Type: AWS::DynamoDB::Table
    Properties:
      BillingMode: PAY_PER_REQUEST
      AttributeDefinitions: [{AttributeName: id, AttributeType: S}]
      KeySchema: [{AttributeName: id, KeyType: HASH}]
  Inner:
    Type: AWS::Serverless::Application
    Properties:
      Location: nested/inner.yaml
      Parameters:
        ThingsTable: !Ref Things
"""
# An application of the Serverless Application Repository: not a file, not read locally.
FROM_THE_REPOSITORY = """
  FromTheRepository:
    Type: AWS::Serverless::Application
    Properties:
      Location:
        ApplicationId: arn:aws:serverlessrepo:us-east-1:123456789012:applications/elsewhere
        SemanticVersion: 1.0.0
"""
INNER = """
AWSTemplateFormatVersion: "2010-09-09"
Transform: AWS::Serverless-2016-10-31
Parameters:
  ThingsTable: {Type: String}
Resources:
  InnerQueue:
    Type: AWS::SQS::Queue
  InnerFunction:
    Type: AWS::Serverless::Function
    Properties:
      Runtime: python3.13
      Handler: app.handler
      CodeUri: ../fn/
      Environment: {Variables: {THINGS_TABLE: !Ref ThingsTable, QUEUE_URL: !Ref InnerQueue}}
      Events:
        Work: {Type: SQS, Properties: {Queue: !GetAtt InnerQueue.Arn, BatchSize: 5}}
  Deeper:
    Type: AWS::CloudFormation::Stack
    Properties:
      TemplateURL: deeper.yaml
"""
DEEPER = """
AWSTemplateFormatVersion: "2010-09-09"
Resources:
  DeeperQueue:
    Type: AWS::SQS::Queue
"""


def write_templates(root: Path, main: str = MAIN) -> Path:
    (root / "nested").mkdir()
    (root / "fn").mkdir()
    (root / "fn" / "app.py").write_text("def handler(event, context):\n    return event\n")
    (root / "nested" / "inner.yaml").write_text(INNER)
    (root / "nested" / "deeper.yaml").write_text(DEEPER)
    (root / "template.yaml").write_text(main)
    return root / "template.yaml"


def test_nested_templates_are_found_by_their_local_location_only(tmp_path: Path) -> None:
    main = write_templates(tmp_path, MAIN + FROM_THE_REPOSITORY)
    assert nested_templates(main) == {
        "Inner": tmp_path / "nested" / "inner.yaml",
        "Inner/Deeper": tmp_path / "nested" / "deeper.yaml",
    }


def test_a_nested_stacks_functions_queues_and_triggers_are_the_local_stacks(tmp_path: Path) -> None:
    template = LocalTemplate.load(write_templates(tmp_path))
    function = template.functions["InnerFunction"]
    # Its code where its own template says, its variables resolved through the parameters given it
    assert Path(function.codeuri or "").resolve() == (tmp_path / "fn").resolve()
    assert (function.environment or {})["Variables"] == {"THINGS_TABLE": "Things", "QUEUE_URL": "InnerQueue"}
    assert set(template.resources("AWS::SQS::Queue")) == {"InnerQueue", "DeeperQueue"}
    assert set(template.resources("AWS::DynamoDB::Table")) == {"Things"}
    [trigger] = template.sqs_triggers()
    assert (trigger.function_name, trigger.queue_id, trigger.batch_size) == ("InnerFunction", "InnerQueue", 5)
    assert template.stack("Inner").location.endswith("inner.yaml")
