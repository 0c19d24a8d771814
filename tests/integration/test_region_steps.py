"""Every documented step of a deployment's regions (docs/regions.md), rendered as CloudFormation
renders it and played against an account that remembers which tables exist and which stack
holds each: no step creates a table that exists, replaces one or drops one unretained, no import
leaves a table out or changes anything else, and at the end every table is held by the home
region's stack alone."""

from dataclasses import dataclass, field
from typing import Any

import pytest
from samcli.yamlhelper import yaml_parse

from tests.integration.test_template import (
    GLOBAL_TABLES,
    SINGLE_REGION_RELEASE,
    STREAM,
    TABLE_IDENTITY,
    Rendered,
    subprocess_text,
)

TABLE_TYPES = ("AWS::DynamoDB::Table", "AWS::DynamoDB::GlobalTable")
EU, US, AP = "eu-central-1", "us-east-1", "ap-southeast-1"
PREFIX = {"TableNamePrefix": "shortlink-global-"}
# The generated names of a stack from before the global tables, and the parameters that adopt them.
SUFFIXES = {name: f"-{name.upper()[:4]}1QX7" for name in GLOBAL_TABLES}
ADOPTED = {"TableNamePrefix": "shortlink-prod-"} | {f"{name}Suffix": suffix for name, suffix in SUFFIXES.items()}


def tables_of(resources: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {name: resource for name, resource in resources.items() if resource["Type"] in TABLE_TYPES}


def replica_regions(table: dict[str, Any], region: str) -> set[str]:
    if table["Type"] == "AWS::DynamoDB::Table":
        return {region}
    return {replica["Region"] for replica in table["Properties"]["Replicas"]}


@dataclass
class Account:
    """The tables that exist (name → the regions holding a replica) and each region's stack (its
    resources as last deployed) and the table names it holds."""

    tables: dict[str, set[str]] = field(default_factory=dict)
    stacks: dict[str, dict[str, Any]] = field(default_factory=dict)
    names: dict[str, dict[str, str]] = field(default_factory=dict)

    def deploy(self, region: str, parameters: dict[str, Any], resources: dict[str, Any] | None = None) -> None:
        """A create or update of `region`'s stack: its rules hold, no new table exists already, a
        kept table keeps its name and identity, a table leaving the stack is retained."""
        if resources is None:
            rendered = Rendered(parameters, region)
            assert not rendered.broken_rules(), (region, rendered.broken_rules())
            resources = rendered.resources()
        before, after = tables_of(self.stacks.get(region, {})), tables_of(resources)
        names = self.names.setdefault(region, {})
        for logical_id, table in after.items():
            name = table["Properties"].get("TableName") or names.get(logical_id) or generated(logical_id)
            if logical_id in before:
                old = before[logical_id]
                assert (table["Type"], name) == (old["Type"], names[logical_id]), (region, logical_id, "replaced")
                for key in TABLE_IDENTITY:
                    assert table["Properties"].get(key) == old["Properties"].get(key), (region, logical_id, key)
            else:
                assert name not in self.tables, (region, logical_id, f"creates {name}, which exists")
                names[logical_id] = name
            self.tables[name] = replica_regions(table, region)
        for logical_id in set(before) - set(after):
            assert before[logical_id].get("DeletionPolicy") == "Retain", (region, logical_id, "deleted")
            del names[logical_id]
        self.stacks[region] = resources

    def import_tables(self, region: str, parameters: dict[str, Any]) -> None:
        """A change set of type IMPORT: every table the template adds exists and is retained,
        and nothing else changes."""
        rendered = Rendered(parameters, region)
        assert not rendered.broken_rules(), (region, rendered.broken_rules())
        resources = rendered.resources()
        current = self.stacks[region]
        added = set(tables_of(resources)) - set(tables_of(current))
        assert added, (region, "imports nothing")
        assert {k: v for k, v in resources.items() if k not in added} == current, (region, "changes more")
        names = self.names[region]
        for logical_id in added:
            table = resources[logical_id]
            name = table["Properties"]["TableName"]
            assert name in self.tables, (region, logical_id, f"imports {name}, which does not exist")
            assert (table.get("DeletionPolicy"), table.get("UpdateReplacePolicy")) == ("Retain", "Retain")
            names[logical_id] = name
        self.stacks[region] = resources

    def delete_stack(self, region: str) -> None:
        for logical_id, table in tables_of(self.stacks.pop(region)).items():
            assert table.get("DeletionPolicy") == "Retain", (region, logical_id, "deleted")
        self.names.pop(region, None)

    def assert_held_by(self, home: str, regions: set[str]) -> None:
        """Every table that exists is held by `home`'s stack and no other, with a replica in each
        of `regions`."""
        holders: dict[str, list[str]] = {}
        for region, names in self.names.items():
            for name in names.values():
                holders.setdefault(name, []).append(region)
        assert {name: holders.get(name) for name in self.tables} == {name: [home] for name in self.tables}
        assert all(replicas == regions for replicas in self.tables.values()), self.tables
        assert len(self.tables) == len(GLOBAL_TABLES) + 1  # and the audit log


def generated(logical_id: str) -> str:
    """The name CloudFormation gave a table of a stack from before the global tables."""
    return f"shortlink-prod-{logical_id}{SUFFIXES[logical_id]}"


def regions_of(*regions: str, home: str) -> dict[str, str]:
    return {**PREFIX, "Regions": ",".join(regions), "HomeRegion": home}


def away(*regions: str, home: str) -> dict[str, str]:
    """A region's parameters away from home (it takes its replica's stream as a parameter)."""
    return {**regions_of(*regions, home=home), "ClickStatsStreamArn": STREAM}


def three_regions() -> Account:
    account = Account()
    account.deploy(EU, regions_of(EU, US, AP, home=EU))
    account.deploy(US, away(EU, US, AP, home=EU))
    account.deploy(AP, away(EU, US, AP, home=EU))
    return account


def test_a_new_deployment_of_three_regions_creates_each_table_once_at_home():
    three_regions().assert_held_by(EU, {EU, US, AP})


def test_adding_a_region_at_the_end_adds_a_replica_to_every_table_and_creates_none_there():
    account = Account()
    account.deploy(EU, regions_of(EU, US, home=EU))
    account.deploy(US, away(EU, US, home=EU))
    account.deploy(EU, regions_of(EU, US, AP, home=EU))
    account.deploy(US, away(EU, US, AP, home=EU))
    account.deploy(AP, away(EU, US, AP, home=EU))
    account.assert_held_by(EU, {EU, US, AP})


def test_removing_the_last_region_drops_its_replicas_and_its_stack_holds_no_table():
    account = three_regions()
    account.deploy(EU, regions_of(EU, US, home=EU))
    account.deploy(US, away(EU, US, home=EU))
    account.delete_stack(AP)
    account.assert_held_by(EU, {EU, US})


def test_promoting_another_home_region_adopts_every_table_and_creates_none():
    account = three_regions()
    # Step 1 (the old home is down): the survivors write at the new home, whose stack creates no table
    account.deploy(US, {**away(EU, US, AP, home=US), "TablesInStack": "false"})
    account.deploy(AP, away(EU, US, AP, home=US))
    # Step 2: the new home imports every table
    account.import_tables(US, {**away(EU, US, AP, home=US), "TablesInStack": "true"})
    # Step 3: the old home returns; its tables leave its stack, retained
    account.deploy(EU, away(EU, US, AP, home=US))
    account.assert_held_by(US, {EU, US, AP})


@pytest.mark.parametrize("then_regions", [False, True], ids=["one region", "then two"])
def test_upgrading_a_single_region_stack_adopts_every_table_and_creates_none_that_exists(then_regions):
    old = yaml_parse(subprocess_text("git", "show", f"{SINGLE_REGION_RELEASE}:template.yaml"))["Resources"]
    account = Account()
    account.deploy(US, {}, {name: r for name, r in old.items() if r["Type"] in TABLE_TYPES})
    # Step 1: the release deployed, its tables retained
    account.deploy(US, {}, {name: {**r, "DeletionPolicy": "Retain"} for name, r in tables_of(old).items()})
    # Step 2: the tables out of the stack, used by their names
    account.deploy(US, {**ADOPTED, "TablesInStack": "false", "ClickStatsStreamArn": STREAM})
    # Step 3: imported as global tables
    account.import_tables(US, {**ADOPTED, "ClickStatsStreamArn": STREAM})
    # Step 4: deployed normally
    account.deploy(US, {**ADOPTED, "ClickStatsStreamArn": STREAM})
    if not then_regions:
        account.assert_held_by(US, {US})
        return
    several = {**ADOPTED, "Regions": f"{US},{EU}", "HomeRegion": US}
    account.deploy(US, {**several, "ClickStatsStreamArn": STREAM})
    account.deploy(EU, {**several, "ClickStatsStreamArn": STREAM})
    account.assert_held_by(US, {US, EU})
