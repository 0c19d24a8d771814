"""The composition root's cached factories register themselves, and reset() forgets every one
of them: a factory added later cannot be left out (workspace_names once was)."""

import ast
import importlib
import inspect
import pkgutil
from functools import _lru_cache_wrapper
from typing import Any

import pytest
import urllib3  # noqa: F401  # imported before sockets are off: its import probes for IPv6 with one

from shortlink import wiring
from shortlink.wiring.factories import registered

# Enough of an environment for every factory to build its adapter, without a network call.
ENVIRONMENT = {
    "AWS_REGION": "us-east-1",
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "LINKS_TABLE": "LinksTable",
    "API_KEYS_TABLE": "ApiKeysTable",
    "COUNTERS_TABLE": "CountersTable",
    "CLICK_STATS_TABLE": "ClickStatsTable",
    "CLICKS_QUEUE_URL": "https://sqs.us-east-1.amazonaws.com/123456789012/ClicksQueue",
    "IDEMPOTENCY_TABLE": "IdempotencyTable",
    "WEBHOOKS_TABLE": "WebhooksTable",
    "WEBHOOK_QUEUE_URL": "https://sqs.us-east-1.amazonaws.com/123456789012/WebhookQueue",
    "AUDIT_TABLE": "AuditTable",
    "EDGE_STORE_ARN": "arn:aws:cloudfront::123456789012:key-value-store/0123abcd-0123-0123-0123-0123456789ab",
    "CLICK_LAKE_WORKGROUP": "shortlink-click-lake",
    "CLICK_LAKE_DATABASE": "shortlink_click_lake",
    "EDGE_FUNCTION_NAME": "shortlink-edge-redirect",
    "CODE_MODE": "random",
    "VISITOR_SALT": "s" * 32,
    "CONSOLE_SESSION_SECRET": "c" * 32,
    "PEOPLE_USER_POOL_ID": "us-east-1_pool",
    "PEOPLE_CLIENT_ID": "client",
    "PEOPLE_PRINT_INVITATIONS": "true",
    # The managed login (owners' single sign-on set-ups: the pool's identity providers).
    "SSO_LOGIN_URL": "https://links.auth.us-east-1.amazoncognito.com",
    "SSO_CLIENT_ID": "sso-client",
    "SSO_ISSUER": "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_pool",
    "SSO_CALLBACK_URL": "https://sho.rt/console/sso/callback",
}


def test_each_name_of_the_composition_root_is_made_by_the_module_it_is_looked_up_in():
    # A function imports only the wiring modules whose names it uses (the redirect's init neither
    # the console's nor the webhooks'): each public name is found in the module the map names
    names = [name for names in wiring.FACTORY_MODULES.values() for name in names]
    imported = ast.parse(inspect.getsource(wiring)).body  # the type checker's imports of them
    checked = next(node for node in imported if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING")
    assert sorted(names) == sorted(alias.name for node in checked.body for alias in node.names)  # type: ignore[attr-defined]
    for module, made in wiring.FACTORY_MODULES.items():
        found = importlib.import_module(f"{wiring.__name__}.{module}")
        assert all(getattr(wiring, name) is getattr(found, name) for name in made)
    with pytest.raises(AttributeError, match="no attribute 'nothing_made_here'"):
        getattr(wiring, "nothing_made_here")  # noqa: B009 - a name the type checker would refuse


def wiring_modules() -> list[Any]:
    return [wiring] + [
        importlib.import_module(f"{wiring.__name__}.{module.name}") for module in pkgutil.iter_modules(wiring.__path__)
    ]


def test_every_cached_function_of_the_composition_root_is_registered():
    cached = {
        id(value): f"{module.__name__}.{name}"
        for module in wiring_modules()
        for name, value in vars(module).items()
        if isinstance(value, _lru_cache_wrapper)
    }
    assert len(cached) >= 30
    assert set(cached) == {id(each) for each in registered()}, "cached without @factory: " + ", ".join(
        sorted(cached[key] for key in set(cached) - {id(each) for each in registered()})
    )


@pytest.fixture
def environment(monkeypatch):
    for name, value in ENVIRONMENT.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("POWERTOOLS_SERVICE_NAME", raising=False)
    wiring.reset()
    yield
    wiring.reset()


def test_reset_forgets_what_every_factory_built(environment):
    # Given every registered factory has built its adapter (a factory with parameters, once
    # with a stand-in for each)
    for built in registered():
        parameters = inspect.signature(built).parameters
        built(*(object() for _ in parameters))
    assert wiring.workspace_names in registered()
    assert all(built.cache_info().currsize == 1 for built in registered())
    # When the environment is reset
    wiring.reset()
    # Then each builds afresh on its next call
    left = [built.__qualname__ for built in registered() if built.cache_info().currsize]
    assert left == []
    first = wiring.workspace_names()
    wiring.reset()
    assert wiring.workspace_names() is not first
