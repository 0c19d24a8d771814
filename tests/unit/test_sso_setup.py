"""Single sign-on set up in the console, pure: the form's checks (the issuer and metadata URLs pass
the webhooks' address guard in every spelling of an inside address), the fetch guard refusing
before it connects (sockets are off here), the documents' checks, the provider's name in the
pool, the set-up's life (saved, tested, on) and a save that leaves nothing half-made."""

from dataclasses import dataclass, field
from datetime import UTC, datetime

import pytest

from shortlink.adapters.http.provider_documents import GuardedProviderDocuments
from shortlink.sso.provider_documents import checked_discovery, saml_entity_id
from shortlink.sso.provider_setup import (
    MAX_PROVIDER_NAME,
    ProviderSetup,
    SsoSetupInvalid,
    SsoSetupState,
    marked_tested,
    provider_name_for,
    saved_again,
    turned_on,
)
from shortlink.sso.setup_form import setup_request
from shortlink.sso.setup_steps import DocumentUnreadable, save_setup
from shortlink.web.urls import DestinationPolicy

AT = datetime(2026, 12, 6, 12, 0, tzinfo=UTC)
ISSUER = "https://idp.example.com"
OIDC = {
    "protocol": "OIDC",
    "issuer": ISSUER,
    "client_id": "client",
    "client_secret": "secret",
    "button_label": "Example Corp",
    "default_role": "viewer",
    "email_domains": "Example.com, @example.org",
}
DISCOVERY = (
    b'{"issuer": "https://idp.example.com", "authorization_endpoint": "https://idp.example.com/a",'
    b' "token_endpoint": "https://idp.example.com/t", "jwks_uri": "https://idp.example.com/k"}'
)
METADATA = (
    '<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" '
    'xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="https://idp.example.com/saml">'
    '<md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">'
    "<md:KeyDescriptor><ds:KeyInfo><ds:X509Data><ds:X509Certificate>MIIB</ds:X509Certificate>"
    "</ds:X509Data></ds:KeyInfo></md:KeyDescriptor>"
    '<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" '
    'Location="https://idp.example.com/sso"/></md:IDPSSODescriptor></md:EntityDescriptor>'
)
# One inside address in many spellings: decimal, octal, hex, short forms, IPv4-mapped and other
# IPv6 embeddings, a trailing dot, full-width (IDN) letters, metadata, unique-local, link-local.
INSIDE_SPELLINGS = [
    "https://2130706433/",
    "https://0177.0.0.1/",
    "https://0x7f000001/",
    "https://0x7f.1/",
    "https://127.1/",
    "https://[::ffff:127.0.0.1]/",
    "https://[::ffff:a9fe:a9fe]/",
    "https://[64:ff9b::a9fe:a9fe]/",
    "https://169.254.169.254./",
    "https://2852039166/",
    "https://0251.0376.0251.0376/",
    "https://localhost./",
    "https://\uff4c\uff4f\uff43\uff41\uff4c\uff48\uff4f\uff53\uff54/",  # localhost in full-width letters
    "https://\u2460\u2461\u2466.0.0.1/",  # circled digits: 127.0.0.1
    "https://metadata.google.internal/",
    "https://[fd00:ec2::254]/",
    "https://[fe80::1]/",
    "https://10.0.0.1/",
    "http://idp.example.com/",
]


@pytest.mark.parametrize("url", INSIDE_SPELLINGS)
def test_an_issuer_or_metadata_url_the_server_may_not_fetch_is_refused_in_every_spelling(url):
    with pytest.raises(SsoSetupInvalid) as issuer:
        setup_request({**OIDC, "issuer": url}, None, DestinationPolicy())
    assert set(issuer.value.errors) == {"issuer"}
    saml = {"protocol": "SAML", "metadata_url": url, "button_label": "x", "default_role": "viewer"}
    with pytest.raises(SsoSetupInvalid) as metadata:
        setup_request(saml, None, DestinationPolicy())
    assert set(metadata.value.errors) == {"metadata_url"}


@pytest.mark.parametrize(
    "address", ["169.254.169.254", "10.1.2.3", "127.0.0.1", "::1", "fd00:ec2::254", "::ffff:a9fe:a9fe"]
)
def test_the_fetch_checks_the_address_dns_gives_now_and_refuses_before_connecting(address):
    # The name passed the form's checks; now it resolves inside (DNS rebinding)
    documents = GuardedProviderDocuments(resolver=lambda host, port: ["93.184.215.14", address])
    with pytest.raises(DocumentUnreadable, match="may not reach"):
        documents.fetch(f"{ISSUER}/.well-known/openid-configuration", 1024)


def test_the_form_is_read_and_checked_field_by_field():
    request = setup_request(OIDC, None, DestinationPolicy())
    assert (request.issuer, request.email_domains, request.email_attribute) == (
        "https://idp.example.com/", ("example.com", "example.org"), "email",
    )  # fmt: skip
    with pytest.raises(SsoSetupInvalid) as bad:
        setup_request(
            {**OIDC, "client_secret": "", "default_role": "owner", "email_domains": "no domain!", "button_label": ""},
            None,
            DestinationPolicy(),
        )
    assert set(bad.value.errors) == {"client_secret", "default_role", "email_domains", "button_label"}
    with pytest.raises(SsoSetupInvalid, match="query or fragment"):
        setup_request({**OIDC, "issuer": f"{ISSUER}/?tenant=1"}, None, DestinationPolicy())
    # Saved before with OIDC: an empty secret keeps the provider's
    assert setup_request({**OIDC, "client_secret": ""}, setup(), DestinationPolicy()).client_secret == ""
    both = {"protocol": "SAML", "metadata_url": ISSUER, "metadata_document": METADATA, "button_label": "x"}
    with pytest.raises(SsoSetupInvalid, match="not both"):
        setup_request({**both, "default_role": "viewer"}, None, DestinationPolicy())


def test_documents_that_are_not_what_they_claim_are_refused():
    assert checked_discovery(ISSUER, DISCOVERY)["issuer"] == ISSUER
    with pytest.raises(SsoSetupInvalid, match="names another issuer"):
        checked_discovery("https://other.example.com", DISCOVERY)
    with pytest.raises(SsoSetupInvalid, match="no https token_endpoint"):
        checked_discovery(ISSUER, DISCOVERY.replace(b"https://idp.example.com/t", b"http://idp.example.com/t"))
    with pytest.raises(SsoSetupInvalid, match="not a discovery document"):
        checked_discovery(ISSUER, b"<html>")
    assert saml_entity_id(METADATA) == "https://idp.example.com/saml"
    external = '<!DOCTYPE md [<!ENTITY x SYSTEM "file:///etc/passwd">]><md>&x;</md>'
    with pytest.raises(SsoSetupInvalid, match="DTD or entities"):
        saml_entity_id(external)
    with pytest.raises(SsoSetupInvalid, match="no signing certificate"):
        saml_entity_id(METADATA.replace("<ds:X509Certificate>MIIB</ds:X509Certificate>", ""))
    with pytest.raises(SsoSetupInvalid, match="no identity provider"):
        saml_entity_id(METADATA.replace("IDPSSODescriptor", "SPSSODescriptor"))


def test_managed_login_alone_lets_owners_set_providers_up_without_a_deploy_time_button():
    from shortlink.errors import ConfigurationError
    from shortlink.settings.sso import SsoSettings

    login = {
        "SSO_LOGIN_URL": "https://p.auth",
        "SSO_CLIENT_ID": "c",
        "SSO_ISSUER": "https://i",
        "PUBLIC_BASE_URL": "https://s",
    }
    settings = SsoSettings.from_env(login)
    assert (settings.managed_login, settings.enabled, settings.documents_allow_loopback) == (True, False, False)
    with pytest.raises(ConfigurationError, match="SSO_CLIENT_ID"):
        SsoSettings.from_env({**login, "SSO_CLIENT_ID": ""})
    assert not SsoSettings.from_env({}).managed_login


@pytest.mark.parametrize(
    ("typed", "kept"),
    [
        ("Example.COM.", "example.com"),
        ("bücher.de", "xn--bcher-kva.de"),
        ("a..b", None),
        ("localhost", None),
        ("\udc80.com", None),
    ],
)
def test_an_email_domain_is_kept_in_one_form_or_refused(typed, kept):
    from shortlink.sso.setup_form import email_domain

    assert email_domain(typed) == kept


@pytest.mark.parametrize("workspace", ["acme", "0123456789ab", "a" * 40, "team_one", "équipe"])
def test_a_workspaces_provider_name_keeps_to_cognitos_rules_and_is_stable(workspace):
    name = provider_name_for(workspace)
    assert name == provider_name_for(workspace)
    assert 3 <= len(name) <= MAX_PROVIDER_NAME
    assert name.startswith("ws-")
    assert name.isascii()
    assert "_" not in name
    assert name.replace("-", "").isalnum()


def setup(version: int = 1, **fields) -> ProviderSetup:
    values = {"issuer": ISSUER, "client_id": "client", "version": version, **fields}
    return ProviderSetup("acme", "OIDC", "Example", "viewer", ("example.com",), AT, "o@example.com", **values)


def test_a_setup_is_on_only_after_a_test_of_its_version_and_a_change_asks_for_a_new_test():
    saved = saved_again(None, setup())
    assert (saved.version, saved.tested, saved.on) == (1, False, False)
    with pytest.raises(SsoSetupState, match="Test the sign-in"):
        turned_on(saved)
    on = turned_on(marked_tested(saved, 1, "o@example.com"))
    assert on.on
    changed = saved_again(on, setup())
    assert (changed.version, changed.tested, changed.on) == (2, False, False)
    with pytest.raises(SsoSetupState, match="changed after this test"):
        marked_tested(changed, 1, "o@example.com")


@dataclass
class Fakes:
    """The ports, recording what was made; `failing` names a step that raises."""

    failing: str = ""
    made: dict[str, str] = field(default_factory=dict)
    listed: list[str] = field(default_factory=list)
    kept: dict[str, ProviderSetup] = field(default_factory=dict)

    def fetch(self, url: str, max_bytes: int) -> bytes:
        if self.failing == "fetch":
            raise DocumentUnreadable(f"{url} answered 404")
        return DISCOVERY

    def put(self, name, protocol, details, email_attribute) -> bool:
        self.made[name] = protocol
        return True

    def remove(self, name: str) -> None:
        self.made.pop(name, None)

    def allow(self, name: str) -> None:
        self.listed.append(name)

    def disallow(self, name: str) -> None:
        self.listed.remove(name)

    def get(self, workspace_id: str) -> ProviderSetup | None:
        return self.kept.get(workspace_id)

    def save(self, setup: ProviderSetup, previous: ProviderSetup | None) -> None:
        if self.failing == "save":
            raise SsoSetupInvalid({"email_domains": "email domains: example.com is another workspace's"}, 409)
        self.kept[setup.workspace_id] = setup

    def delete(self, setup: ProviderSetup) -> None:
        self.kept.pop(setup.workspace_id)

    def domain_owner(self, domain: str) -> str | None:
        return None


@pytest.mark.parametrize("failing", ["fetch", "save"])
def test_a_save_that_fails_leaves_no_provider_made_and_nothing_kept(failing):
    fakes = Fakes(failing)
    request = setup_request({**OIDC, "email_domains": "example.com"}, None, DestinationPolicy())
    with pytest.raises(SsoSetupInvalid):
        save_setup(request, "acme", "o@example.com", AT, fakes, fakes, fakes, VERIFIED)
    assert (fakes.made, fakes.listed, fakes.kept) == ({}, [], {})
    working = Fakes()
    saved = save_setup(request, "acme", "o@example.com", AT, working, working, working, VERIFIED)
    assert (working.made, working.listed, saved.on) == ({"ws-acme": "OIDC"}, ["ws-acme"], False)


VERIFIED = frozenset({"example.com"})


def test_an_email_domain_the_workspace_has_not_verified_by_dns_is_refused():
    # An address at a domain proves no hold on it: a webmail user would route all its users
    fakes = Fakes()
    request = setup_request({**OIDC, "email_domains": "example.com"}, None, DestinationPolicy())
    with pytest.raises(SsoSetupInvalid, match=r"example\.com is not verified for this workspace"):
        save_setup(request, "acme", "o@example.com", AT, fakes, fakes, fakes, frozenset({"example.org"}))
    assert (fakes.made, fakes.kept) == ({}, {})


def test_an_owner_names_only_the_domain_of_their_own_address():
    # No one sends another company's people to a provider of their choosing
    fakes = Fakes()
    request = setup_request(OIDC, None, DestinationPolicy())  # example.com and example.org
    with pytest.raises(SsoSetupInvalid, match=r"example\.org is not the domain of your own address"):
        save_setup(request, "acme", "o@example.com", AT, fakes, fakes, fakes, VERIFIED)
    with pytest.raises(SsoSetupInvalid, match="name only yours"):
        save_setup(request, "acme", "deploy bot", AT, fakes, fakes, fakes)  # a key's session: no address
    assert (fakes.made, fakes.kept) == ({}, {})
