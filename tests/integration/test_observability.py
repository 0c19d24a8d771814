"""The dashboard and the alarms name exactly the custom metrics the code emits."""

import json
import re

from samcli.yamlhelper import yaml_parse

from tests.integration.conftest import ROOT

NAMESPACE = "Shortlink"
# How the code emits a custom metric: the redirect's dispatcher counts (`dispatcher.count("X")`,
# `counts["X"]`), Powertools elsewhere (`add_metric(name="X", ...)`).
EMITTING = re.compile(r'dispatcher\.count\("(\w+)"\)|counts\["(\w+)"\] =|add_metric\(name="(\w+)"')


def emitted_by_code() -> set[str]:
    sources = [*ROOT.glob("functions/*/app.py"), *ROOT.glob("layers/common/shortlink/**/*.py")]
    return {
        name for path in sources for match in EMITTING.finditer(path.read_text()) for name in match.groups() if name
    }


def custom_metrics_in(value) -> set[str]:
    """Metric names in the Shortlink namespace anywhere in a dashboard body or a resource."""
    found: set[str] = set()
    if isinstance(value, list):
        if len(value) >= 2 and value[0] == NAMESPACE and isinstance(value[1], str):
            found.add(value[1])
        for entry in value:
            found |= custom_metrics_in(entry)
    elif isinstance(value, dict):
        if value.get("Namespace") == NAMESPACE:
            found.add(value["MetricName"])
        for entry in value.values():
            found |= custom_metrics_in(entry)
    return found


def test_every_custom_metric_is_on_the_dashboard_and_every_one_there_is_emitted():
    resources = yaml_parse((ROOT / "template.yaml").read_text())["Resources"]
    body = resources["OperationsDashboard"]["Properties"]["DashboardBody"]["Fn::Sub"]
    on_dashboard = custom_metrics_in(json.loads(body))
    in_alarms = custom_metrics_in(
        [resource for resource in resources.values() if resource["Type"] == "AWS::CloudWatch::Alarm"]
    )
    emitted = emitted_by_code()
    assert emitted >= {"CacheHits", "CacheMisses", "RuleDenials", "ClicksIngested", "DuplicatesSkipped"}
    assert on_dashboard == emitted
    assert in_alarms <= emitted


def test_the_alarms_cover_errors_dead_letters_queue_age_and_throttles():
    resources = yaml_parse((ROOT / "template.yaml").read_text())["Resources"]
    alarms = {name for name, resource in resources.items() if resource["Type"] == "AWS::CloudWatch::Alarm"}
    assert alarms == {
        "ApiErrorRateAlarm",
        "ClicksDeadLetterAlarm",
        "ClicksQueueAgeAlarm",
        "DynamoThrottleAlarm",
        "WebhookDeadLetterAlarm",
    }
    for name in alarms:
        actions = resources[name]["Properties"]["AlarmActions"]
        assert actions == {"Fn::If": ["HasAlarmTopic", [{"Ref": "AlarmTopicArn"}], {"Ref": "AWS::NoValue"}]}
