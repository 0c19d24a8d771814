"""An owner's steps with the workspace's identity provider: save (read the provider's document,
make or update the pool's provider, let the console's client use it, keep the set-up), record a
test sign-in, turn on or off, remove. Nothing half-done: a document that cannot be read or is not
one makes nothing, and a save that fails after the provider was made takes it away again."""

from dataclasses import replace
from datetime import datetime
from typing import Protocol as Port

from shortlink.errors import ShortlinkError
from shortlink.sso.provider_documents import (
    MAX_DISCOVERY_BYTES,
    MAX_METADATA_BYTES,
    checked_discovery,
    discovery_url,
    saml_entity_id,
)
from shortlink.sso.provider_setup import (
    Protocol,
    ProviderSetup,
    SsoSetupInvalid,
    SsoSetupState,
    marked_tested,
    saved_again,
    turned_off,
    turned_on,
)
from shortlink.sso.setup_form import SetupRequest, email_domain

OIDC_SCOPES = "openid email profile"


class DocumentUnreadable(ShortlinkError):
    """The identity provider's document could not be fetched (refused address, no answer, not 200, too long)."""


class ProviderDocuments(Port):
    def fetch(self, url: str, max_bytes: int) -> bytes:
        """The document at `url` (at most `max_bytes`), fetched as the server's guarded request."""
        ...


class IdentityProviders(Port):
    def put(self, name: str, protocol: Protocol, details: dict[str, str], email_attribute: str) -> bool:
        """Make or update the pool's provider `name` (True: made now). Details it lacks (an OIDC
        client secret, a SAML provider's metadata) are kept from the provider as it is."""
        ...

    def remove(self, name: str) -> None:
        """The pool's provider `name` gone (nothing if there is none)."""
        ...

    def allow(self, name: str) -> None:
        """The console's app client may sign people in through `name` (its other providers kept)."""
        ...

    def disallow(self, name: str) -> None:
        """The console's app client no longer signs people in through `name`."""
        ...


class ProviderSetups(Port):
    def get(self, workspace_id: str) -> ProviderSetup | None: ...

    def save(self, setup: ProviderSetup, previous: ProviderSetup | None) -> None:
        """Keep `setup` (over `previous`, unchanged since read) and its email domains, releasing
        the domains `previous` had; SsoSetupInvalid (409) if a domain is another workspace's,
        SsoSetupState (409) if `previous` changed meanwhile."""
        ...

    def delete(self, setup: ProviderSetup) -> None: ...

    def domain_owner(self, domain: str) -> str | None:
        """The workspace whose set-up names this email domain, if one does."""
        ...


def _fetched(documents: ProviderDocuments, url: str, max_bytes: int, field: str) -> bytes:
    try:
        return documents.fetch(url, max_bytes)
    except DocumentUnreadable as error:
        raise SsoSetupInvalid({field: f"{field.replace('_', ' ')}: {error}"}) from None


def provider_details(request: SetupRequest, documents: ProviderDocuments) -> dict[str, str]:
    """The pool provider's details for `request`, once the document it names was read and checked."""
    if request.protocol == "OIDC":
        document = _fetched(documents, discovery_url(request.issuer), MAX_DISCOVERY_BYTES, "issuer")
        checked_discovery(request.issuer, document)
        secret = {"client_secret": request.client_secret} if request.client_secret else {}
        return {
            "client_id": request.client_id,
            **secret,
            "oidc_issuer": request.issuer,
            "authorize_scopes": OIDC_SCOPES,
            "attributes_request_method": "GET",
        }
    if request.metadata_url:
        saml_entity_id(_fetched(documents, request.metadata_url, MAX_METADATA_BYTES, "metadata_url"))
        return {"MetadataURL": request.metadata_url, "IDPSignout": "false"}
    if request.metadata_document:
        saml_entity_id(request.metadata_document, "metadata_document")
        return {"MetadataFile": request.metadata_document, "IDPSignout": "false"}
    return {}  # the same protocol again without metadata: the provider keeps its own


def _claimable_domains(
    request: SetupRequest, workspace_id: str, owner_email: str, setups: ProviderSetups, verified: frozenset[str]
) -> None:
    """Each email domain is the saving owner's own (their address is at it), one the workspace
    proved it holds by DNS (an address at a domain is no proof: anyone with a webmail address
    would send its other users to a provider of their choosing), and no other workspace's."""
    own = email_domain(owner_email.rpartition("@")[2]) if "@" in owner_email else None
    for domain in request.email_domains:
        if domain != own:
            problem = f"email domains: {domain} is not the domain of your own address; name only {own or 'yours'}"
            raise SsoSetupInvalid({"email_domains": problem})
        if domain not in verified:
            problem = (
                f"email domains: {domain} is not verified for this workspace: add it under Settings, "
                "Domains, and publish its TXT record first"
            )
            raise SsoSetupInvalid({"email_domains": problem})
        if setups.domain_owner(domain) not in (None, workspace_id):
            raise SsoSetupInvalid({"email_domains": f"email domains: {domain} is another workspace's"}, 409)


def save_setup(
    request: SetupRequest,
    workspace_id: str,
    by: str,
    at: datetime,
    documents: ProviderDocuments,
    providers: IdentityProviders,
    setups: ProviderSetups,
    verified_domains: frozenset[str] = frozenset(),
) -> ProviderSetup:
    """The workspace's set-up saved as `request` asks by the owner `by` (their email), not yet on
    (a new version to test). `verified_domains`: the workspace's domains verified by DNS, the
    only email domains it may route to its provider."""
    current = setups.get(workspace_id)
    _claimable_domains(request, workspace_id, by, setups, verified_domains)
    details = provider_details(request, documents)
    fields = ProviderSetup(
        workspace_id,
        request.protocol,
        request.button_label,
        request.default_role,
        request.email_domains,
        at,
        by,
        email_attribute=request.email_attribute,
        issuer=request.issuer,
        client_id=request.client_id,
        metadata_url=request.metadata_url if request.protocol == "SAML" else "",
    )
    if request.protocol == "SAML" and not details and current is not None:  # the metadata it had
        fields = replace(fields, metadata_url=current.metadata_url)
    setup = saved_again(current, fields)
    name = setup.provider_name
    made = providers.put(name, request.protocol, details, request.email_attribute)
    try:
        providers.allow(name)
        setups.save(setup, current)
    except Exception:
        if made:  # nothing half-made: the provider this save made goes with it
            providers.disallow(name)
            providers.remove(name)
        raise
    return setup


def record_test(setups: ProviderSetups, workspace_id: str, version: int, email: str) -> ProviderSetup:
    """The set-up, tested by its owner `email`, who signed in through it in `version`."""
    current = _existing(setups, workspace_id)
    tested = marked_tested(current, version, email)
    setups.save(tested, current)
    return tested


def _existing(setups: ProviderSetups, workspace_id: str) -> ProviderSetup:
    current = setups.get(workspace_id)
    if current is None:
        raise SsoSetupState(404, "This workspace has no single sign-on set up.")
    return current


def switched(setups: ProviderSetups, workspace_id: str, on: bool) -> ProviderSetup:
    """The set-up turned on (only once tested) or off."""
    current = _existing(setups, workspace_id)
    changed = turned_on(current) if on else turned_off(current)
    setups.save(changed, current)
    return changed


def remove_setup(setups: ProviderSetups, providers: IdentityProviders, workspace_id: str) -> ProviderSetup:
    """The workspace's provider gone from the console's client and the pool, and its set-up."""
    current = _existing(setups, workspace_id)
    providers.disallow(current.provider_name)
    providers.remove(current.provider_name)
    setups.delete(current)
    return current
