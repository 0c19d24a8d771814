"""people.yaml's invitation emails: the custom message trigger, its permission scoped to the
stack's own pool, and the pool's LambdaConfig; none of them for a pool the stack is given."""

import ast
import sys
from pathlib import Path

from samcli.yamlhelper import yaml_parse

from shortlink.settings.people import POOL_PASSWORD_RULE
from tests.integration.test_template import Rendered

ROOT = Path(__file__).resolve().parents[2]
BROUGHT_POOL = {"ExistingUserPoolId": "eu-west-1_Brought123", "ExistingUserPoolClientId": "abc123"}


def test_the_pool_asks_the_invitation_function_for_its_messages():
    resources = Rendered({"Architecture": "x86_64"}).resources()
    pool = resources["UserPool"]["Properties"]
    assert pool["LambdaConfig"] == {"CustomMessage": {"Fn::GetAtt": ["InvitationMessageFunction", "Arn"]}}
    function = resources["InvitationMessageFunction"]
    assert function["Type"] == "AWS::Serverless::Function"
    properties = function["Properties"]
    assert (properties["CodeUri"], properties["Handler"], properties["Runtime"]) == (
        "functions/invitation_message/",
        "app.handler",
        "python3.13",
    )
    # The main template's architecture, passed down; no layer, no environment, little memory
    assert properties["Architectures"] == ["x86_64"]
    assert "Layers" not in properties
    assert "Environment" not in properties
    assert properties["MemorySize"] == 128


def test_only_cognito_on_behalf_of_this_pool_may_call_the_function():
    permission = Rendered({}).resources()["InvitationMessagePermission"]
    assert permission["Type"] == "AWS::Lambda::Permission"
    assert permission["Properties"] == {
        "Action": "lambda:InvokeFunction",
        "FunctionName": {"Fn::GetAtt": ["InvitationMessageFunction", "Arn"]},
        "Principal": "cognito-idp.amazonaws.com",
        "SourceArn": {"Fn::GetAtt": ["UserPool", "Arn"]},
        "SourceAccount": {"Ref": "AWS::AccountId"},
    }


def test_the_console_is_told_whether_the_pool_sends_invitations():
    def told(parameters: dict[str, str]) -> str:
        console = Rendered(parameters).resources()["ConsoleFunction"]
        return str(console["Properties"]["Environment"]["Variables"]["PEOPLE_POOL_SENDS_INVITATIONS"])

    assert told({}) == "true"
    # A pool of yours has no trigger of ours: SES or the link shown to the inviter, as before
    assert told(BROUGHT_POOL) == "false"
    resources = Rendered(BROUGHT_POOL).resources()
    assert not {"UserPool", "InvitationMessageFunction", "InvitationMessagePermission"} & set(resources)


def test_the_function_needs_nothing_but_the_standard_library():
    folder = ROOT / "functions" / "invitation_message"
    assert sorted(path.name for path in folder.iterdir() if path.name != "__pycache__") == ["app.py"]
    tree = ast.parse((folder / "app.py").read_text())
    nodes = list(ast.walk(tree))
    imported = {alias.name.split(".")[0] for node in nodes if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module.split(".")[0] for node in nodes if isinstance(node, ast.ImportFrom) and node.module}
    assert imported
    assert imported <= sys.stdlib_module_names


def test_people_yaml_is_a_sam_template_given_the_main_templates_architecture():
    people = yaml_parse((ROOT / "people.yaml").read_text())
    assert people["Transform"] == "AWS::Serverless-2016-10-31"
    main = yaml_parse((ROOT / "template.yaml").read_text())
    assert people["Parameters"]["Architecture"]["AllowedValues"] == main["Parameters"]["Architecture"]["AllowedValues"]
    assert main["Resources"]["People"]["Properties"]["Parameters"]["Architecture"] == {"Ref": "Architecture"}


def test_the_password_rule_the_invitation_page_shows_is_the_pools_own():
    template = yaml_parse((ROOT / "people.yaml").read_text())
    policy = template["Resources"]["UserPool"]["Properties"]["Policies"]["PasswordPolicy"]
    minimum = template["Parameters"]["PasswordMinimumLength"]["Default"]
    # The page's words say each requirement people.yaml sets, and no other
    assert f"at least {minimum} characters" in POOL_PASSWORD_RULE
    said = {"RequireLowercase": "lower-case", "RequireUppercase": "upper-case", "RequireNumbers": "digit"}
    for flag, words in said.items():
        assert (words in POOL_PASSWORD_RULE) == policy[flag], flag
    assert policy["RequireSymbols"] is False
    assert "symbol" not in POOL_PASSWORD_RULE
