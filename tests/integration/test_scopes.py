"""Every API route of template.yaml checks its scopes: a key lacking one gets 403 naming it, before
its body is read; a key holding them gets past the check. The routes come from the template and
their scopes from the OpenAPI document, so a new route without a scope fails here until it
declares one."""

import json

import pytest

from shortlink.access.api_keys import (
    ALL_SCOPES,
    generate_api_key,
    hash_api_key,
    key_id_for,
)
from shortlink.adapters.dynamodb.api_key_store import DynamoApiKeyStore
from shortlink.wiring import resources
from tests.aws_calls import recording_aws_calls
from tests.events import bearer, http_event
from tests.integration.test_scope_matrix import openapi_scopes

# The scopes each API route needs: its OpenAPI security requirement (docs/api.md, Scopes), which a
# drift test keeps the functions' own.
ROUTE_SCOPES = {route: scopes for route, scopes in openapi_scopes().items() if scopes}
# Routes no API key is asked for: the redirect, its unlock form, the docs; the console (a session
# of a key, whose scopes it checks itself).
PUBLIC_ROUTES = {
    ("GET", "/console"),
    ("GET", "/console/{proxy+}"),
    ("POST", "/console/{proxy+}"),
    ("GET", "/{code}"),
    ("HEAD", "/{code}"),
    ("POST", "/{code}"),
    ("POST", "/unlock/{code}"),  # a password link's form
    ("GET", "/openapi.json"),
    ("GET", "/docs"),
    ("GET", "/"),  # a short domain's root and app-link files
    ("GET", "/.well-known/{file}"),
    ("GET", "/robots.txt"),
}
# Routes only people call: an access token of the user pool, never a key (test_scope_matrix.py).
PEOPLE_ROUTES = {("GET", "/people/me"), ("POST", "/workspaces")}
# SCIM's routes: a workspace's SCIM token opens them, never a key (tests/integration/test_scim.py).
SCIM_ROUTES = {(method, "/scim/v2/{proxy+}") for method in ("GET", "POST", "PUT", "PATCH", "DELETE")}
PATH_VALUES = {"{code}": "abc1234", "{key_id}": "0123456789ab", "{endpoint_id}": "ep_" + "0" * 32}


def api_routes(template):
    routes = {(method, route.path): route.function_name for route in template.api().routes for method in route.methods}
    assert set(routes) == set(ROUTE_SCOPES) | PUBLIC_ROUTES | PEOPLE_ROUTES | SCIM_ROUTES, (
        "a route of template.yaml has no scope here"
    )
    return [(method, path, routes[(method, path)]) for method, path in sorted(ROUTE_SCOPES)]


def add_key(scopes):
    plaintext = generate_api_key()
    key_hash = hash_api_key(plaintext)
    DynamoApiKeyStore(resources().api_keys_table.value).add(key_hash, key_id_for(key_hash), "scoped", scopes=scopes)
    return plaintext


def call(handlers, function, method, path, key, body="{}", content_type="application/json"):
    concrete = path
    for placeholder, value in PATH_VALUES.items():
        concrete = concrete.replace(placeholder, value)
    parameters = {name.strip("{}"): value for name, value in PATH_VALUES.items() if name in path}
    has_body = method in ("POST", "PATCH")
    event = http_event(
        method,
        concrete,
        route=path,
        path_parameters=parameters,
        headers={**bearer(key), "content-type": content_type},
        body=body if has_body else None,
    )
    answer = handlers[function](event)
    return answer["statusCode"], json.loads(answer["body"] or "null")


def answered_by_the_route(status: int) -> bool:
    """Past the scope check: the route's own answer, which is never a refusal of the key nor a
    failure (a body of {} or a made-up code earns a 4xx naming it, or a 2xx)."""
    return status < 500 and status not in (401, 403)


def test_a_key_lacking_a_routes_scope_is_refused_naming_it_before_the_body_is_read(aws, handlers, template):
    keys_without = {scope: add_key(ALL_SCOPES - {scope}) for scope in ALL_SCOPES}
    for method, path, function in api_routes(template):
        for needed in sorted(ROUTE_SCOPES[(method, path)] & ALL_SCOPES):  # workspace:owner: no key's (below)
            with recording_aws_calls() as calls:
                # A body that is neither JSON nor sent as JSON: 403 comes before 415 and 422.
                status, body = call(handlers, function, method, path, keys_without[needed], "{not json", "text/plain")
            assert (status, body["error"], body["scope"]) == (403, "missing_scope", needed), (method, path, body)
            assert body["message"] == f"{method} {path} needs the scope {needed}"
            # Only the key was read (and its first use of the day recorded): nothing else touched.
            assert set(calls.counts()) <= {("dynamodb", "GetItem"), ("dynamodb", "UpdateItem")}, (method, path)
        if not ROUTE_SCOPES[(method, path)] <= ALL_SCOPES:
            continue  # an owner's route (workspace:owner) refuses every key, whatever it lacks
        for scope in ALL_SCOPES - ROUTE_SCOPES[(method, path)]:  # lacking any other scope does not matter here
            status, _ = call(handlers, function, method, path, keys_without[scope])
            assert answered_by_the_route(status), (method, path, scope, status)


@pytest.mark.parametrize("scope", sorted(ALL_SCOPES))
def test_a_key_holding_only_one_scope_passes_exactly_the_routes_of_that_scope(aws, handlers, template, scope):
    key = add_key(frozenset({scope}))
    for method, path, function in api_routes(template):
        status, _ = call(handlers, function, method, path, key)
        if ROUTE_SCOPES[(method, path)] == {scope}:
            assert answered_by_the_route(status), (method, path, status)
        else:
            assert status == 403, (method, path, status)


def test_a_key_stored_before_scopes_existed_keeps_full_access(aws, handlers, template):
    plaintext = generate_api_key()
    key_hash = hash_api_key(plaintext)
    legacy = {"key_hash": {"S": key_hash}, "key_id": {"S": key_id_for(key_hash)}, "name": {"S": "old"}}
    legacy["created_at"] = {"S": "2026-01-01T00:00:00.000000+0000"}
    aws.dynamodb.put_item(TableName=resources().api_keys_table.value, Item=legacy)
    for method, path, function in api_routes(template):
        if not ROUTE_SCOPES[(method, path)] <= ALL_SCOPES:  # an owner's route: a person's token only
            status, body = call(handlers, function, method, path, plaintext)
            assert (status, body["scope"]) == (403, "workspace:owner"), (method, path, body)
            continue
        status, _ = call(handlers, function, method, path, plaintext)
        assert answered_by_the_route(status), (method, path, status)


def test_a_path_parameter_no_route_matches_is_a_404_not_a_missing_scope(aws, handlers, template):
    # Powertools answers such a path through a route of its own, which declares no scope.
    key = aws.new_api_key()
    for method, path, function in api_routes(template):
        if "{" not in path:
            continue
        parameters = {name.strip("{}"): "\x84" for name in PATH_VALUES if name in path}
        concrete = path
        for placeholder in PATH_VALUES:
            concrete = concrete.replace(placeholder, "\x84")
        event = http_event(method, concrete, route=path, path_parameters=parameters, headers=bearer(key))
        answer = handlers[function](event)
        assert answer["statusCode"] in (404, 422), (method, path, answer["body"])
