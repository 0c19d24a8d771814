"""The functions' settings: one small model per concern, each field read from its variable with
its default and bounds, composed per function; a missing or wrong variable is named."""

import os
from collections.abc import Mapping
from dataclasses import dataclass, fields

import pytest

from shortlink import wiring as services
from shortlink.codes.partitions import MAX_REGIONS
from shortlink.domains.model import ShortDomains
from shortlink.errors import ConfigurationError
from shortlink.settings.addresses import AddressSettings
from shortlink.settings.clicks import ClickSettings
from shortlink.settings.codes import CodeSettings
from shortlink.settings.console import ConsoleSettings
from shortlink.settings.domains import ShortDomainSettings
from shortlink.settings.edge import MIN_EDGE_SECRET_LENGTH, EdgeSettings
from shortlink.settings.environment import Concern, EnvironmentModel, Resource
from shortlink.settings.functions import FUNCTIONS, function_settings
from shortlink.settings.ip_databases import IpDatabaseSettings
from shortlink.settings.lambda_runtime import LambdaRuntimeSettings
from shortlink.settings.link_cache import LinkCacheSettings
from shortlink.settings.metrics import RedirectMetricSettings
from shortlink.settings.rate_limits import RateLimitSettings
from shortlink.settings.regions import RegionSettings
from shortlink.settings.resources import Resources
from shortlink.settings.scanners import ScannerSettings
from shortlink.settings.webhooks import WebhookSettings

EDGE_SECRET = "e" * MIN_EDGE_SECRET_LENGTH
THREE = "eu-central-1,us-east-1,ap-southeast-1"

# Each variable with a value of it, and the field of its model that value gives.
EVERY_VARIABLE = [
    (CodeSettings, "CODE_LENGTH", "9", "length", 9),
    (CodeSettings, "CODE_MODE", "random", "mode", "random"),
    (CodeSettings, "ID_BLOCK_SIZE", "250", "id_block_size", 250),
    (CodeSettings, "PERMUTATION_KEY", "k" * 32, "permutation_key", "k" * 32),
    (CodeSettings, "PERMUTATION_KEY_PARAMETER", "/s/key", "permutation_key_parameter", "/s/key"),
    (LinkCacheSettings, "LINK_CACHE_TTL_SECONDS", "60", "ttl_seconds", 60),
    (LinkCacheSettings, "LINK_NEGATIVE_CACHE_TTL_SECONDS", "0", "negative_ttl_seconds", 0),
    (LinkCacheSettings, "LINK_CACHE_MAX_ENTRIES", "500", "max_entries", 500),
    (AddressSettings, "PUBLIC_BASE_URL", "https://sho.rt/", "public_base_url", "https://sho.rt"),
    (AddressSettings, "BLOCKED_DOMAINS", " evil.com, ,bad.org ", "blocked_domains", {"evil.com", "bad.org"}),
    (AddressSettings, "OWN_HOSTS_PARAMETER", "/s/hosts", "own_hosts_parameter", "/s/hosts"),
    (
        ShortDomainSettings,
        "SHORT_DOMAINS",
        "Sho.rt, go.example",
        "short_domains",
        ShortDomains(("sho.rt", "go.example")),
    ),
    (ShortDomainSettings, "DOMAIN_SETTINGS", "{}", "pages", "{}"),
    (ShortDomainSettings, "DOMAIN_SETTINGS_PARAMETER", "/s/domains", "pages_parameter", "/s/domains"),
    (EdgeSettings, "EDGE_SECRET", EDGE_SECRET, "secret", EDGE_SECRET),
    (ClickSettings, "CLICK_PACK_WINDOW_MS", "0", "pack_window_ms", 0),
    (ClickSettings, "CLICK_PACK_MAX_CLICKS", "10", "pack_max_clicks", 10),
    (ClickSettings, "REPEAT_CLICK_WINDOW_SECONDS", "0", "repeat_window_seconds", 0),
    (IpDatabaseSettings, "COUNTRY_DATABASE", "/opt/c.mmdb", "country_database", "/opt/c.mmdb"),
    (IpDatabaseSettings, "NETWORK_DATABASE", "/opt/n.mmdb", "network_database", "/opt/n.mmdb"),
    (IpDatabaseSettings, "IP_DATABASE_BUCKET", "databases", "bucket", "databases"),
    (IpDatabaseSettings, "COUNTRY_DATABASE_KEY", "c.mmdb", "country_key", "c.mmdb"),
    (IpDatabaseSettings, "NETWORK_DATABASE_KEY", "n.mmdb", "network_key", "n.mmdb"),
    (IpDatabaseSettings, "IP_DATABASE_CHECK_MINUTES", "5", "check_minutes", 5),
    (ScannerSettings, "SCANNER_NETWORKS", "off", "networks", "off"),
    (ScannerSettings, "SCANNER_ASNS", "AS8075", "asns", {8075}),
    (ScannerSettings, "SCANNER_NETWORK_NAMES", "Proofpoint", "network_names", {"proofpoint"}),
    (ScannerSettings, "SCANNER_BURST_LINKS", "0", "burst_links", 0),
    (ScannerSettings, "SCANNER_BURST_WINDOW_MS", "500", "burst_window_ms", 500),
    (ClickSettings, "VISITOR_SALT", "s" * 16, "visitor_salt", "s" * 16),
    (ClickSettings, "VISITOR_SALT_PARAMETER", "/s/salt", "visitor_salt_parameter", "/s/salt"),
    (ConsoleSettings, "CONSOLE_SESSION_SECRET", "c" * 16, "session_secret", "c" * 16),
    (ConsoleSettings, "CONSOLE_SESSION_SECRET_PARAMETER", "/s/console", "session_secret_parameter", "/s/console"),
    (WebhookSettings, "SHORTLINK_WEBHOOKS_ALLOW_LOOPBACK", "true", "allow_loopback", True),
    (RateLimitSettings, "CREATE_RATE_LIMIT_PER_MINUTE", "0", "creates_per_minute", 0),
    (RateLimitSettings, "UNLOCK_ATTEMPTS_PER_WINDOW", "3", "unlock_attempts_per_window", 3),
    (RateLimitSettings, "SIGN_IN_ATTEMPTS_PER_WINDOW", "1000", "sign_in_attempts_per_window", 1000),
    (RegionSettings, "SHORTLINK_REGIONS", f" {THREE} ", "regions", tuple(THREE.split(","))),
    (RegionSettings, "AWS_REGION", "us-east-1", "region", "us-east-1"),
    (RedirectMetricSettings, "POWERTOOLS_METRICS_NAMESPACE", "Links", "namespace", "Links"),
    (RedirectMetricSettings, "REDIRECT_SERVICE_NAME", "redirect", "redirect_service", "redirect"),
    (RedirectMetricSettings, "POWERTOOLS_SERVICE_NAME", "ingest", "own_service", "ingest"),
    (LambdaRuntimeSettings, "AWS_LAMBDA_RUNTIME_API", "127.0.0.1:9001", "extensions_api", "127.0.0.1:9001"),
    (RegionSettings, "SHORTLINK_HOME_REGION", " us-east-1 ", "home_region", "us-east-1"),
    *(
        (Resources, variable, f"{variable.lower()}-value", field, Resource(variable, f"{variable.lower()}-value"))
        for variable, field in (
            ("LINKS_TABLE", "links_table"),
            ("API_KEYS_TABLE", "api_keys_table"),
            ("COUNTERS_TABLE", "counters_table"),
            ("CLICK_STATS_TABLE", "click_stats_table"),
            ("CLICKS_QUEUE_URL", "clicks_queue"),
            ("IDEMPOTENCY_TABLE", "idempotency_table"),
            ("WEBHOOKS_TABLE", "webhooks_table"),
            ("WEBHOOK_QUEUE_URL", "webhook_queue"),
            ("EDGE_STORE_ARN", "edge_store"),
            ("CLICK_LAKE_STREAM", "click_lake_stream"),
            ("CLICK_LAKE_WORKGROUP", "click_lake_workgroup"),
            ("CLICK_LAKE_DATABASE", "click_lake_database"),
            ("CLICK_LAKE_BUCKET", "click_lake_bucket"),
            ("EDGE_FUNCTION_NAME", "edge_function"),
        )
    ),
]
FIELD_OF = {variable: field for _, variable, _, field, _ in EVERY_VARIABLE}
CONCERNS: list[type[EnvironmentModel]] = sorted(
    {row[0] for row in EVERY_VARIABLE}, key=lambda concern: concern.__name__
)
# What a region-aware concern needs to be read at all: this function's region.
IN_A_REGION = {"AWS_REGION": "us-east-1"}


@pytest.mark.parametrize(("concern", "variable", "value", "field", "expected"), EVERY_VARIABLE)
def test_every_variable_is_read_into_its_field(concern, variable, value, field, expected):
    assert getattr(concern.from_env({**IN_A_REGION, variable: value}), field) == expected


def test_every_variable_a_model_declares_is_read_above():
    declared = {(concern, variable) for concern in CONCERNS for variable in concern.variables()}
    assert declared == {(concern, variable) for concern, variable, *_ in EVERY_VARIABLE}
    # and no two concerns read the same variable
    assert len({variable for _, variable in declared}) == len(declared) == 58


def test_unset_and_empty_variables_take_the_defaults():
    for env in ({}, {variable: "" for _, variable, *_ in EVERY_VARIABLE}):
        assert CodeSettings.from_env(env) == CodeSettings(7, "sequence", 1000, "", "")
        assert LinkCacheSettings.from_env(env) == LinkCacheSettings(30, 5, 10_000)
        assert AddressSettings.from_env(env) == AddressSettings("", frozenset(), "")
        assert ShortDomainSettings.from_env(env).short_domains.hosts == ()
        assert EdgeSettings.from_env(env).trust_edge_headers is False
        assert ClickSettings.from_env(env) == ClickSettings(1000, 1000, 10, "", "")
        assert IpDatabaseSettings.from_env(env) == IpDatabaseSettings("", "", "", "", "", 60)
        assert RateLimitSettings.from_env(env) == RateLimitSettings(60, 10, 10)
        assert WebhookSettings.from_env(env).allow_loopback is False
        assert RedirectMetricSettings.from_env(env).namespace == "Shortlink"
        assert LambdaRuntimeSettings.from_env(env).extensions_api == ""
        resources = Resources.from_env(env)
        assert not any(getattr(resources, each.name).given for each in fields(Resources))


@pytest.mark.parametrize(
    ("concern", "variable", "lowest", "highest"),
    [
        (CodeSettings, "CODE_LENGTH", 4, 10),
        (CodeSettings, "ID_BLOCK_SIZE", 1, 1_000_000),
        (LinkCacheSettings, "LINK_CACHE_TTL_SECONDS", 0, 3600),
        (LinkCacheSettings, "LINK_NEGATIVE_CACHE_TTL_SECONDS", 0, 3600),
        (LinkCacheSettings, "LINK_CACHE_MAX_ENTRIES", 1, 1_000_000),
        (ClickSettings, "CLICK_PACK_WINDOW_MS", 0, 60_000),
        (ClickSettings, "CLICK_PACK_MAX_CLICKS", 1, 1000),
        (ClickSettings, "REPEAT_CLICK_WINDOW_SECONDS", 0, 3600),
        (IpDatabaseSettings, "IP_DATABASE_CHECK_MINUTES", 1, 1440),
        (ScannerSettings, "SCANNER_BURST_LINKS", 0, 100),
        (ScannerSettings, "SCANNER_BURST_WINDOW_MS", 1, 60_000),
        (RateLimitSettings, "CREATE_RATE_LIMIT_PER_MINUTE", 0, 1_000_000),
        (RateLimitSettings, "UNLOCK_ATTEMPTS_PER_WINDOW", 1, 1000),
        (RateLimitSettings, "SIGN_IN_ATTEMPTS_PER_WINDOW", 1, 1000),
    ],
)
def test_numbers_are_read_within_their_bounds_and_refused_outside_naming_the_variable(
    concern, variable, lowest, highest
):
    for within in (lowest, highest):
        assert getattr(concern.from_env({variable: str(within)}), FIELD_OF[variable]) == within
    for outside in (lowest - 1, highest + 1):
        with pytest.raises(ConfigurationError, match=rf"^{variable}: must be between {lowest} and {highest}"):
            concern.from_env({variable: str(outside)})
    with pytest.raises(ConfigurationError, match=rf"^{variable}: must be an integer, got 'seven'"):
        concern.from_env({variable: "seven"})


@pytest.mark.parametrize(
    ("concern", "env", "problem"),
    [
        (CodeSettings, {"CODE_MODE": "sequential"}, "CODE_MODE: must be one of sequence, random, got 'sequential'"),
        (ShortDomainSettings, {"SHORT_DOMAINS": "sho.rt,not a host"}, "SHORT_DOMAINS: 'not a host' is not a host"),
        (EdgeSettings, {"EDGE_SECRET": EDGE_SECRET[1:]}, "EDGE_SECRET must be at least 32 characters"),
    ],
)
def test_a_wrong_value_is_refused_naming_its_variable(concern, env, problem):
    with pytest.raises(ConfigurationError, match=problem):
        concern.from_env(env)


def test_only_true_allows_loopback_webhooks():
    for value in ("1", "yes", "True", "false"):
        assert WebhookSettings.from_env({"SHORTLINK_WEBHOOKS_ALLOW_LOOPBACK": value}).allow_loopback is False


def test_secrets_stay_out_of_a_models_repr():
    env = {"PERMUTATION_KEY": "p" * 32, "VISITOR_SALT": "v" * 32, "CONSOLE_SESSION_SECRET": "c" * 32}
    shown = " ".join(repr(model.from_env({**env, "EDGE_SECRET": EDGE_SECRET})) for model in CONCERNS)
    for secret in (*env.values(), EDGE_SECRET):
        assert secret not in shown


def test_a_resource_not_told_is_named_when_used():
    resources = Resources.from_env({"LINKS_TABLE": "links"})
    assert (resources.links_table.value, resources.links_table.given) == ("links", "links")
    assert not resources.webhook_queue.given
    with pytest.raises(ConfigurationError, match=r"^environment variable CLICKS_QUEUE_URL is not set$"):
        _ = resources.clicks_queue.value


def test_no_regions_is_a_single_region_deployment_as_before():
    for env in ({"AWS_REGION": "us-east-1"}, {"AWS_REGION": "us-east-1", "SHORTLINK_REGIONS": "us-east-1"}):
        config = RegionSettings.from_env(env)
        assert not config.several_regions
        assert (config.region_index, config.home_region, config.home_region_name) == (0, "us-east-1", None)
        assert config.region_name is None
        assert not config.away_from_home
    # Tools and tests name their region the older way
    assert RegionSettings.from_env({"AWS_DEFAULT_REGION": "eu-west-1"}).region == "eu-west-1"
    assert RegionSettings.from_env({"AWS_REGION": "us-east-1", "AWS_DEFAULT_REGION": "eu-west-1"}).region == "us-east-1"


def test_each_region_knows_its_place_and_its_home():
    for index, region in enumerate(THREE.split(",")):
        config = RegionSettings.from_env(
            {"AWS_REGION": region, "SHORTLINK_REGIONS": f" {THREE} ", "SHORTLINK_HOME_REGION": "us-east-1"}
        )
        assert config.several_regions
        assert config.regions == tuple(THREE.split(","))
        assert config.region_index == index
        assert config.home_region == "us-east-1"
        assert (config.home_region_name, config.region_name) == ("us-east-1", region)
        assert config.away_from_home == (region != "us-east-1")


def test_without_a_home_region_each_region_is_its_own():
    config = RegionSettings.from_env({"AWS_REGION": "ap-southeast-1", "SHORTLINK_REGIONS": THREE})
    assert (config.home_region, config.away_from_home, config.region_index) == ("ap-southeast-1", False, 2)


@pytest.mark.parametrize(
    ("env", "problem"),
    [
        ({"SHORTLINK_REGIONS": "eu-central-1,us-east-1"}, "does not name this function's region 'ap-southeast-1'"),
        ({"SHORTLINK_REGIONS": f"{THREE},us-east-1"}, "SHORTLINK_REGIONS: names a region twice"),
        ({"SHORTLINK_REGIONS": "ap-southeast-1,Frankfurt"}, "SHORTLINK_REGIONS: 'Frankfurt' is not a region name"),
        ({"SHORTLINK_REGIONS": THREE, "SHORTLINK_HOME_REGION": "us-west-2"}, "'us-west-2' is not one of"),
        ({"SHORTLINK_HOME_REGION": "us-east-1"}, "'us-east-1' is not one of SHORTLINK_REGIONS"),
        (
            {"SHORTLINK_REGIONS": ",".join(f"ap-southeast-{n}" for n in range(1, MAX_REGIONS + 2))},
            f"SHORTLINK_REGIONS: names more than {MAX_REGIONS} regions",
        ),
    ],
)
def test_a_wrong_deployment_fails_loudly_naming_the_variable(env, problem):
    with pytest.raises(ConfigurationError, match=problem):
        RegionSettings.from_env({"AWS_REGION": "ap-southeast-1", **env})


REDIRECT = {
    "POWERTOOLS_SERVICE_NAME": "redirect",
    "LINKS_TABLE": "links",
    "COUNTERS_TABLE": "counters",
    "CLICKS_QUEUE_URL": "https://sqs.example/q",
    "AWS_REGION": "us-east-1",
}


def test_a_functions_settings_are_the_concerns_it_reads_each_read_once():
    read = function_settings({**REDIRECT, "LINK_CACHE_TTL_SECONDS": "7"})
    assert set(read) == {Resources, *FUNCTIONS["redirect"].reads}
    assert ConsoleSettings not in read
    assert CodeSettings not in read
    assert read[LinkCacheSettings] == LinkCacheSettings(7, 5, 10_000)
    assert resources_of(read).clicks_queue.value == "https://sqs.example/q"
    # Given only the variable each of these needs, they read their settings
    keys = function_settings({"POWERTOOLS_SERVICE_NAME": "keys", "API_KEYS_TABLE": "keys"})
    assert resources_of(keys).api_keys_table.value == "keys"
    ingest = function_settings({"POWERTOOLS_SERVICE_NAME": "ingest", "CLICK_STATS_TABLE": "stats"})
    assert resources_of(ingest).click_stats_table.value == "stats"


def resources_of(read: dict[type[Concern], Concern]) -> Resources:
    model = read[Resources]
    assert isinstance(model, Resources)
    return model


@pytest.mark.parametrize("missing", ["LINKS_TABLE", "COUNTERS_TABLE", "CLICKS_QUEUE_URL"])
def test_a_function_missing_a_resource_it_requires_names_it(missing):
    with pytest.raises(ConfigurationError, match=rf"^environment variable {missing} is not set$"):
        function_settings({**REDIRECT, missing: ""})


def test_a_wrong_variable_of_any_concern_of_a_function_fails_its_whole_set():
    with pytest.raises(ConfigurationError, match=r"^CLICK_PACK_MAX_CLICKS: must be between"):
        function_settings({**REDIRECT, "CLICK_PACK_MAX_CLICKS": "0"})


def test_the_service_name_picks_the_functions_settings():
    assert function_settings({}) == {}  # tools and the local stack: nothing required up front
    with pytest.raises(ConfigurationError, match="IDEMPOTENCY_TABLE is not set"):
        function_settings({**REDIRECT, "POWERTOOLS_SERVICE_NAME": "create", "API_KEYS_TABLE": "keys"})
    with pytest.raises(ConfigurationError, match="'shortener' names no function's settings"):
        function_settings({**REDIRECT, "POWERTOOLS_SERVICE_NAME": "shortener"})


@pytest.fixture
def environment(monkeypatch):
    """os.environ as the test sets it, and the settings read afresh from it."""
    for name in [*os.environ]:
        monkeypatch.delenv(name)
    services.forget_settings()
    yield monkeypatch
    services.forget_settings()


def test_the_composition_root_reads_a_functions_set_on_first_use_and_keeps_it(environment):
    for name, value in {**REDIRECT, "LINK_CACHE_MAX_ENTRIES": "42"}.items():
        environment.setenv(name, value)
    assert services.settings_of(LinkCacheSettings).max_entries == 42
    environment.setenv("LINK_CACHE_MAX_ENTRIES", "43")
    assert services.settings_of(LinkCacheSettings).max_entries == 42  # read once per environment
    assert services.resources().links_table.value == "links"
    # A concern outside the function's set is read on its first use
    assert services.settings_of(CodeSettings).length == 7


def test_the_composition_root_names_a_missing_variable_on_first_use(environment):
    for name, value in {**REDIRECT, "COUNTERS_TABLE": ""}.items():
        environment.setenv(name, value)
    with pytest.raises(ConfigurationError, match=r"^environment variable COUNTERS_TABLE is not set$"):
        services.settings_of(EdgeSettings)
    # Without a service name (tools, tests, the local stack) a table not told is named where it is used
    environment.delenv("POWERTOOLS_SERVICE_NAME")
    services.forget_settings()
    assert services.short_domains() == ShortDomains()
    with pytest.raises(ConfigurationError, match=r"^environment variable COUNTERS_TABLE is not set$"):
        _ = services.resources().counters_table.value


@dataclass(frozen=True)
class Greeting:
    """A concern's model written without the declarative readers, as any module may write one."""

    text: str

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> "Greeting":
        return cls(env.get("GREETING", "hello"))


def test_any_model_with_from_env_is_read_by_the_composition_root(environment):
    environment.setenv("GREETING", "hi")
    assert services.settings_of(Greeting).text == "hi"


@pytest.mark.parametrize("attempts", ["²", "0", "-1", "1.5", "٣"])
def test_people_sign_in_attempts_are_ascii_digits_of_at_least_one(attempts):
    from shortlink.settings.people import PeopleSettings

    with pytest.raises(ConfigurationError, match="PEOPLE_SIGN_IN_ATTEMPTS_PER_ACCOUNT"):
        PeopleSettings.from_env({"PEOPLE_SIGN_IN_ATTEMPTS_PER_ACCOUNT": attempts})
