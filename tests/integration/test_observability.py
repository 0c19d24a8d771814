"""The dashboard and the alarms (monitoring.yaml, template.yaml's Monitoring application) name exactly
the custom metrics the code emits, and watch the resources the main template has."""

import json
import re
from typing import Any

from samcli.yamlhelper import yaml_parse

from shortlink.redirect import outcomes
from shortlink.redirect.outcomes import Outcome
from tests.integration.conftest import ROOT
from tools.developers.devstack.template import LocalTemplate

NAMESPACE = "Shortlink"
# How the code emits a custom metric: the redirect's dispatcher counts (`dispatcher.count("X")`,
# `counts["X"]`), Powertools elsewhere (`add_metric(name="X", ...)`, `single_metric(name="X", ...)`).
EMITTING = re.compile(r'dispatcher\.count\("(\w+)"\)|counts\["(\w+)"\] =|(?:add|single)_metric\(name="(\w+)"')


def emitted_by_code() -> set[str]:
    """The metric names the code emits: those it names where it counts them, and the refusals'
    metrics, which the redirect counts from its table of outcomes."""
    sources = [*ROOT.glob("functions/*/app.py"), *ROOT.glob("layers/common/shortlink/**/*.py")]
    named = {
        name for path in sources for match in EMITTING.finditer(path.read_text()) for name in match.groups() if name
    }
    refusals = {value.metric for value in vars(outcomes).values() if isinstance(value, Outcome) and value.metric}
    return named | refusals


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


def monitoring_resources() -> dict[str, Any]:
    resources: dict[str, Any] = yaml_parse((ROOT / "monitoring.yaml").read_text())["Resources"]
    return resources


def dashboard_bodies() -> list[Any]:
    """The operations dashboard as JSON, once with each front's widget (the API's, the load balancer's)."""
    body, variables = monitoring_resources()["OperationsDashboard"]["Properties"]["DashboardBody"]["Fn::Sub"]
    _, on_load_balancer, on_api = variables["FrontWidget"]["Fn::If"]
    return [json.loads(body.replace("${FrontWidget}", widget["Fn::Sub"])) for widget in (on_load_balancer, on_api)]


def test_every_custom_metric_is_on_the_dashboard_and_every_one_there_is_emitted():
    resources = monitoring_resources()
    on_dashboard = set().union(*(custom_metrics_in(body) for body in dashboard_bodies()))
    in_alarms = custom_metrics_in(
        [resource for resource in resources.values() if resource["Type"] == "AWS::CloudWatch::Alarm"]
    )
    emitted = emitted_by_code()
    assert emitted >= {"CacheHits", "CacheMisses", "RuleDenials", "ClicksIngested", "DuplicatesSkipped"}
    assert on_dashboard == emitted
    assert in_alarms <= emitted


def test_the_alarms_cover_errors_dead_letters_queue_age_and_throttles():
    resources = monitoring_resources()
    alarms = {name for name, resource in resources.items() if resource["Type"] == "AWS::CloudWatch::Alarm"}
    assert alarms == {
        "ApiErrorRateAlarm",
        "ClicksDeadLetterAlarm",
        "ClicksQueueAgeAlarm",
        "DynamoThrottleAlarm",
        "AccountStatsLagAlarm",
        "WebhookDeadLetterAlarm",
        "ReplicationLatencyAlarm",
        "ClickLakeDifferencesAlarm",
        "EdgeCountsAlarm",
        # The load balancer's, when it is the front (ApiErrorRateAlarm is the HTTP API's)
        "BalancerTargetErrorRateAlarm",
        "BalancerErrorAlarm",
        "BalancerRejectedConnectionAlarm",
        "BalancerResponseTimeAlarm",
    }
    for name in alarms:
        actions = resources[name]["Properties"]["AlarmActions"]
        assert actions == {"Fn::If": ["HasAlarmTopic", [{"Ref": "AlarmTopicArn"}], {"Ref": "AWS::NoValue"}]}


def test_the_main_template_tells_the_monitoring_stack_every_name_it_watches():
    # Given the nested application and the template it points to
    main = yaml_parse((ROOT / "template.yaml").read_text())
    monitoring = yaml_parse((ROOT / "monitoring.yaml").read_text())
    application = main["Resources"]["Monitoring"]
    # Then it is a local nested application, given a value for every parameter without a default...
    assert (application["Type"], application["Properties"]["Location"]) == (
        "AWS::Serverless::Application",
        "monitoring.yaml",
    )
    given = application["Properties"]["Parameters"]
    required = {name for name, parameter in monitoring["Parameters"].items() if "Default" not in parameter}
    assert required <= set(given) <= set(monitoring["Parameters"])
    # ...each one a resource of the main template (or its parameter), so no name is typed twice
    for name, value in given.items():
        if name == "DashboardName":
            continue
        # A table by the name every region's replica has: its parameters' names
        if "Fn::If" in value:
            assert value["Fn::If"][0] in main["Conditions"], name
            if isinstance(value["Fn::If"][1], str):  # a condition of the main template, told as "true" or "false"
                continue
            # The load balancer's name exists only with that front (Fn::If of it and "")
            value = value["Fn::If"][1]
        sources = re.findall(r"\$\{([A-Za-z]+)\}", value["Fn::Sub"]) if "Fn::Sub" in value else []
        for source in sources or [value.get("Ref") or value["Fn::GetAtt"][0]]:
            assert source in main["Resources"] or source in main["Parameters"] or source == "AWS::StackName", name
    # and the main template keeps no dashboard or alarm of its own
    kinds = {resource["Type"] for resource in main["Resources"].values()}
    assert not kinds & {"AWS::CloudWatch::Dashboard", "AWS::CloudWatch::Alarm"}


def services_on_dashboard(value: Any) -> set[str]:
    """The `service` dimension values of the dashboard's Shortlink metrics."""
    if isinstance(value, list):
        found: set[str] = set()
        if len(value) >= 4 and value[0] == NAMESPACE and value[2] == "service":
            found.add(value[3])
        return found.union(*(services_on_dashboard(entry) for entry in value))
    if isinstance(value, dict):
        return set().union(*(services_on_dashboard(entry) for entry in value.values()))
    return set()


def test_service_names_come_from_the_template_and_the_dashboard_queries_them():
    # Given each function's POWERTOOLS_SERVICE_NAME in the template (each of the layer's: the pool's
    # invitation email trigger, in people.yaml, is a few lines of the standard library)
    functions = {name: f for name, f in LocalTemplate.load(ROOT / "template.yaml").functions.items() if f.layers}
    assert {"RedirectFunction", "ConsoleFunction", "IngestFunction"} <= set(functions)
    variables = {name: (function.environment or {}).get("Variables") or {} for name, function in functions.items()}
    services = {name: env.get("POWERTOOLS_SERVICE_NAME") for name, env in variables.items()}
    assert all(services.values()), services
    assert len(set(services.values())) == len(services), services
    # Then the code names none of its own (Powertools reads it from the environment)...
    for path in ROOT.glob("functions/*/app.py"):
        assert not re.search(r"(Logger|Tracer|Metrics)\(service=", path.read_text()), path
    # ...ingest emits the redirect's metrics under the redirect's name...
    assert variables["IngestFunction"]["REDIRECT_SERVICE_NAME"] == services["RedirectFunction"]
    # ...and the dashboard queries the services that emit metrics, by those names.
    emitters = (
        "RedirectFunction",
        "IngestFunction",
        "WebhooksFunction",
        "AccountStatsFunction",
        "EdgeSyncFunction",
        "LakeCheckFunction",
        "EdgeCountsFunction",
    )
    emitting = {services[name] for name in emitters}
    for body in dashboard_bodies():
        assert services_on_dashboard(body) == emitting
