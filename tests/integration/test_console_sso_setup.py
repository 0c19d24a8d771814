"""Single sign-on set up by an owner in the console, through the console's Lambda handler against
moto's user pool (the pool's identity providers and the console's SSO client, made from sso.yaml)
and the managed login's stand-in served over HTTP here, which honours the providers the pool has
and the client lists: save (the identity provider's discovery document fetched through the
guarded request), test sign-in, turn on, a person's sign-in by their email domain with the default
role, a change that asks for a new test, removal; only owners; bad input refused with nothing made.
Also the Cognito adapter's read-modify-write of the client and the fetch guard over real HTTP."""

import re
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
import urllib3
from werkzeug.serving import make_server

from shortlink import wiring as services
from shortlink.access.api_keys import hash_api_key
from shortlink.adapters.cognito.identity_providers import CognitoIdentityProviders
from shortlink.adapters.http.provider_documents import GuardedProviderDocuments
from shortlink.audit.queries import AuditQuery
from shortlink.domains.claims import new_domain
from shortlink.sso.provider_setup import provider_name_for
from shortlink.sso.setup_steps import DocumentUnreadable
from shortlink.wiring import memberships
from tests.e2e.running_stack import free_port
from tests.integration.people import Pool, user_pool_in
from tests.integration.test_console_sso import Browser as SsoBrowser
from tools.developers.devstack.managed_login import FakeManagedLogin, create_sso_client, pool_providers

pytestmark = pytest.mark.one_account_per_module
CALLBACK = "https://sho.rt/console/sso/callback"
DEPLOYED = "Entra"  # the deploy-time provider the client lists already: kept through every change
PAGE = "/console/workspace/sso"


class Browser(SsoBrowser):
    """A browser on the console (sho.rt) that posts its forms with their CSRF token."""

    def csrf(self) -> str:
        found = re.search(r'name="csrf" value="([0-9a-f]+)"', self.get("/console")["body"])
        assert found
        return found.group(1)

    def post(self, path: str, form: dict[str, str] | None = None) -> dict[str, Any]:
        return self.request("POST", path, form=urlencode({"csrf": self.csrf(), **(form or {})}))


def signed_in(handlers: dict[str, Any], email: str, password: str) -> Browser:
    browser = Browser(handlers)
    answer = browser.request("POST", "/console/sign-in/person", form=urlencode({"email": email, "password": password}))
    assert answer["statusCode"] == 303, answer["body"]
    return browser


@pytest.fixture
def sso(aws, template, monkeypatch) -> Iterator[tuple[Pool, str]]:
    """The pool, the SSO client and the stand-in served; the console told of them (no deploy-time button)."""
    pool = user_pool_in(template, monkeypatch)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    pool_id = pool.local.user_pool_id
    client_id = create_sso_client(pool.cognito, pool_id, CALLBACK, DEPLOYED, base)
    providers = pool_providers(pool.cognito, pool_id, client_id)
    login = FakeManagedLogin("us-east-1", pool_id, client_id, CALLBACK, DEPLOYED, providers)
    server = make_server("127.0.0.1", port, login.app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    variables = {
        "SSO_LOGIN_URL": base,
        "SSO_CLIENT_ID": client_id,
        "SSO_ISSUER": login.issuer,
        "SSO_JWKS_URL": f"{base}/.well-known/jwks.json",
        "SSO_CALLBACK_URL": CALLBACK,
        "SHORTLINK_SSO_ALLOW_LOOPBACK": "true",
    }
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    services.reset()
    yield pool, base
    server.shutdown()
    server.server_close()


@pytest.fixture
def workspace(aws) -> str:
    """A workspace that verified example.com by DNS (tests/integration/test_workspace_domains.py
    verifies through a DNS server): the email domain its set-ups route."""
    key = aws.new_api_key("sso-workspace")
    owner: str = services.api_key_store().find_by_hash(hash_api_key(key)).owner  # type: ignore[union-attr]
    claims, at = services.domain_claims(), datetime.now(UTC)
    claims.claim(new_domain("example.com", owner, at))
    claims.mark_verified("example.com", owner, at)
    return owner


def client_of(pool: Pool) -> dict[str, Any]:
    client_id = services.sso_settings().client_id
    found: dict[str, Any] = pool.cognito.describe_user_pool_client(
        UserPoolId=pool.local.user_pool_id, ClientId=client_id
    )
    return dict(found["UserPoolClient"])


def pool_provider_names(pool: Pool) -> list[str]:
    found = pool.cognito.list_identity_providers(UserPoolId=pool.local.user_pool_id, MaxResults=60)["Providers"]
    return sorted(each["ProviderName"] for each in found)


def at_the_provider(location: str, email: str) -> dict[str, str]:
    """The person signs in at the stand-in: the callback query it sends the browser back with."""
    fields = {name: values[0] for name, values in parse_qs(urlsplit(location).query).items()}
    base = location.split("/oauth2/authorize")[0]
    page = urllib3.request("GET", location)
    assert page.status == 200, page.data
    answer = urllib3.PoolManager().request(
        "POST", f"{base}/oauth2/authorize", fields={**fields, "email": email}, encode_multipart=False, redirect=False
    )
    assert answer.status == 302, answer.data
    return {name: values[0] for name, values in parse_qs(urlsplit(answer.headers["Location"]).query).items()}


def oidc_form(base: str, **changes: str) -> dict[str, str]:
    return {
        "protocol": "OIDC",
        "issuer": f"{base}/idp",
        "client_id": "0oa-local",
        "client_secret": "s3cret-value",
        "button_label": "Example Corp",
        "default_role": "editor",
        "email_domains": "example.com",
        **changes,
    }


def test_an_owner_sets_oidc_up_tests_it_turns_it_on_and_a_person_joins_with_the_default_role(handlers, sso, workspace):
    pool, base = sso
    owner, password = pool.member("owner@example.com", workspace, "owner")
    owners = signed_in(handlers, owner.email, password)
    name = provider_name_for(workspace)
    # When the owner saves OIDC settings
    saved = owners.post(PAGE, oidc_form(base))
    assert (saved["statusCode"], saved["headers"]["Location"]) == (303, f"{PAGE}?done=saved"), saved["body"]
    # Then the pool has the provider with its details and email mapping, and the client lists it beside the others
    provider = pool.cognito.describe_identity_provider(UserPoolId=pool.local.user_pool_id, ProviderName=name)
    details = provider["IdentityProvider"]["ProviderDetails"]
    assert (details["oidc_issuer"], details["client_id"], details["client_secret"]) == (
        f"{base}/idp", "0oa-local", "s3cret-value",
    )  # fmt: skip
    assert provider["IdentityProvider"]["AttributeMapping"] == {"email": "email"}
    client = client_of(pool)
    assert client["SupportedIdentityProviders"] == [DEPLOYED, name]
    assert (client["CallbackURLs"], client["AllowedOAuthFlows"], client["IdTokenValidity"]) == ([CALLBACK], ["code"], 5)
    # And the page says it is not yet on, never shows the secret, and offers no Turn on before a test
    page = owners.get(PAGE)["body"]
    assert "not yet on" in page
    assert "s3cret-value" not in page
    assert 'id="sso-on"' not in page
    # And the sign-in page's email form leads nowhere yet
    assert Browser(handlers).get("/console/sso", {"email": "ada@example.com"})["statusCode"] == 404
    # When the owner tests the sign-in, as someone else at the provider: refused, not tested
    assert owners.get(f"{PAGE}/test")["statusCode"] == 403  # without the session's token (another site's link)
    started = owners.get(f"{PAGE}/test", {"csrf": owners.csrf()})
    assert started["statusCode"] == 302
    refused = owners.request(
        "GET", "/console/sso/callback", query=at_the_provider(started["headers"]["Location"], "eve@example.com")
    )
    assert refused["statusCode"] == 403
    assert 'id="sso-on"' not in owners.get(PAGE)["body"]
    # When they test it as themself
    started = owners.get(f"{PAGE}/test", {"csrf": owners.csrf()})
    back = owners.request(
        "GET", "/console/sso/callback", query=at_the_provider(started["headers"]["Location"], owner.email)
    )
    assert (back["statusCode"], back["headers"]["Location"]) == (303, f"{PAGE}?done=tested"), back["body"]
    # Then Turn on is offered and turns it on
    assert 'id="sso-on"' in owners.get(PAGE)["body"]
    assert owners.post(f"{PAGE}/on")["statusCode"] == 303
    # When a person of example.com signs in from the sign-in page by their email
    person = Browser(handlers)
    assert 'id="sso-email"' in person.get("/console/sign-in")["body"]
    found = person.get("/console/sso", {"email": "Ada@Example.com"})
    link = f'href="/console/sso?workspace={workspace}" id="sso-workspace-sign-in">Sign in with Example Corp<'
    assert link in found["body"]
    # (routing by the domain lasts only while the workspace holds it: released, it routes nobody)
    services.domain_claims().release("example.com", workspace)
    assert person.get("/console/sso", {"email": "ada@example.com"})["statusCode"] == 404
    claims, at = services.domain_claims(), datetime.now(UTC)
    claims.claim(new_domain("example.com", workspace, at))
    claims.mark_verified("example.com", workspace, at)
    started = person.get("/console/sso", {"workspace": workspace})
    assert started["statusCode"] == 302
    assert parse_qs(urlsplit(started["headers"]["Location"]).query)["identity_provider"] == [name]
    landed = person.request(
        "GET", "/console/sso/callback", query=at_the_provider(started["headers"]["Location"], "ada@example.com")
    )
    assert (landed["statusCode"], landed["headers"]["Location"]) == (303, "/console"), landed["body"]
    # Then they are a member with the default role, and the console is theirs
    roles = {member.email: member.role for member in memberships().members_of(workspace)}
    assert roles["ada@example.com"] == "editor"
    assert person.get("/console")["statusCode"] == 200
    # When the owner changes the settings (the secret left empty: kept), it is off until tested again
    assert owners.post(PAGE, oidc_form(base, client_secret="", button_label="Example"))["statusCode"] == 303
    kept = pool.cognito.describe_identity_provider(UserPoolId=pool.local.user_pool_id, ProviderName=name)
    assert kept["IdentityProvider"]["ProviderDetails"]["client_secret"] == "s3cret-value"
    assert owners.post(f"{PAGE}/on")["statusCode"] == 409
    assert Browser(handlers).get("/console/sso", {"email": "bo@example.com"})["statusCode"] == 404
    # When the owner removes it (after confirming), the provider leaves the pool and the client
    assert owners.post(f"{PAGE}/remove")["statusCode"] == 200  # the question first
    assert owners.post(f"{PAGE}/remove", {"confirmed": "yes"})["statusCode"] == 303
    assert pool_provider_names(pool) == [DEPLOYED]
    assert client_of(pool)["SupportedIdentityProviders"] == [DEPLOYED]
    # And every step is in the audit log
    actions = [entry.action for entry in services.audit_trail().page(workspace, AuditQuery(target_kind="sso")).entries]
    assert sorted(set(actions)) == [
        "sso.provider_removed", "sso.provider_saved", "sso.provider_tested", "sso.provider_turned_on",
    ]  # fmt: skip


def test_bad_settings_or_documents_are_refused_on_the_page_and_nothing_is_made(handlers, sso, workspace):
    pool, base = sso
    owner, password = pool.member("owner-documents@example.com", workspace, "owner")
    owners = signed_in(handlers, owner.email, password)
    for field, changes, message in [
        ("issuer", {"issuer": "https://169.254.169.254/idp"}, "not a public address"),
        ("issuer", {"issuer": "https://0251.0376.0251.0376/idp"}, "not a public address"),  # octal
        ("client_secret", {"client_secret": ""}, "required the first time"),
    ]:
        answer = owners.post(PAGE, oidc_form(base, **changes))
        assert answer["statusCode"] == 422
        assert message in answer["body"]
        assert f'id="{field}-error"' in answer["body"]
    # An issuer that serves no discovery document
    wrong = owners.post(PAGE, oidc_form(base, issuer=f"{base}/no-idp"))
    assert wrong["statusCode"] == 422
    assert "answered 404" in wrong["body"]
    saml = {"protocol": "SAML", "button_label": "Example", "default_role": "viewer"}
    billion_laughs = '<!DOCTYPE x [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;">]><x>&b;</x>'
    bomb = owners.post(PAGE, {**saml, "metadata_document": billion_laughs})
    assert bomb["statusCode"] == 422
    assert "DTD or entities" in bomb["body"]
    not_metadata = owners.post(PAGE, {**saml, "metadata_url": f"{base}/.well-known/jwks.json"})
    assert not_metadata["statusCode"] == 422
    assert "not well-formed XML" in not_metadata["body"]
    assert pool_provider_names(pool) == [DEPLOYED]
    # SAML metadata by URL makes a SAML provider
    assert owners.post(PAGE, {**saml, "metadata_url": f"{base}/idp/saml-metadata.xml"})["statusCode"] == 303
    made = pool.cognito.describe_identity_provider(
        UserPoolId=pool.local.user_pool_id, ProviderName=provider_name_for(workspace)
    )["IdentityProvider"]
    assert made["ProviderType"] == "SAML"
    assert made["ProviderDetails"]["MetadataURL"] == f"{base}/idp/saml-metadata.xml"


def test_only_owners_see_and_change_the_single_sign_on_settings(handlers, sso, workspace):
    pool, base = sso
    for role in ("admin", "editor", "viewer"):
        person, password = pool.member(f"{role}-sso@example.com", workspace, role)
        browser = signed_in(handlers, person.email, password)
        assert browser.get(PAGE)["statusCode"] == 403
        for path in (PAGE, f"{PAGE}/on", f"{PAGE}/off", f"{PAGE}/remove"):
            assert browser.post(path, oidc_form(base))["statusCode"] == 403, (role, path)
        assert browser.get(f"{PAGE}/test", {"csrf": browser.csrf()})["statusCode"] == 403
    assert services.sso_setups().get(workspace) is None


def test_the_adapter_changes_the_clients_providers_and_keeps_every_other_setting(sso):
    pool, base = sso
    providers = CognitoIdentityProviders(pool.local.user_pool_id, services.sso_settings().client_id)
    before = client_of(pool)
    # What each UpdateUserPoolClient carries (moto merges an update's fields; Cognito resets those left out)
    sent: list[dict[str, Any]] = []
    events = providers._client.meta.events
    events.register("provide-client-params.cognito-idp.UpdateUserPoolClient", lambda params, **_: sent.append(params))
    details = {"client_id": "c", "client_secret": "s", "oidc_issuer": f"{base}/idp", "authorize_scopes": "openid"}
    assert providers.put("ws-a", "OIDC", details, "email") is True
    providers.allow("ws-a")
    providers.allow("ws-a")  # once only
    assert client_of(pool)["SupportedIdentityProviders"] == [DEPLOYED, "ws-a"]
    # Another protocol: Cognito changes no provider's type, so it is made again
    assert providers.put("ws-a", "SAML", {"MetadataURL": f"{base}/idp/saml-metadata.xml"}, "email") is True
    providers.disallow("ws-a")
    providers.remove("ws-a")
    providers.remove("ws-a")  # nothing left to remove
    after = client_of(pool)
    changing = ("SupportedIdentityProviders", "LastModifiedDate")
    assert {k: v for k, v in after.items() if k not in changing} == {
        k: v for k, v in before.items() if k not in changing
    }
    # Each update sent every field of the client that the operation takes, as described
    takes = set(providers._client.meta.service_model.operation_model("UpdateUserPoolClient").input_shape.members)
    expected = {name: value for name, value in before.items() if name in takes and name != "SupportedIdentityProviders"}
    assert len(sent) == 2
    assert {"CallbackURLs", "AllowedOAuthFlows", "TokenValidityUnits", "IdTokenValidity"} <= set(expected)
    for params in sent:
        assert {name: value for name, value in params.items() if name != "SupportedIdentityProviders"} == expected


def test_the_fetch_follows_no_redirect_and_reads_no_more_than_allowed():
    import flask

    app = flask.Flask("idp")
    app.add_url_rule("/moved", "moved", lambda: flask.redirect("http://169.254.169.254/latest/meta-data/", 302))
    app.add_url_rule("/large", "large", lambda: "x" * 10_000)
    port = free_port()
    server = make_server("127.0.0.1", port, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        documents = GuardedProviderDocuments(allow_loopback=True)
        with pytest.raises(DocumentUnreadable, match="a redirect, which is not followed"):
            documents.fetch(f"http://127.0.0.1:{port}/moved", 1024)
        with pytest.raises(DocumentUnreadable, match="longer than 1 KB"):
            documents.fetch(f"http://127.0.0.1:{port}/large", 1024)
        # Without the local stack's allowance, loopback is refused before any connection
        with pytest.raises(DocumentUnreadable, match="may not reach"):
            GuardedProviderDocuments().fetch(f"https://127.0.0.1:{port}/large", 1024)
    finally:
        server.shutdown()
        server.server_close()
