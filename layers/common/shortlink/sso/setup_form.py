"""The single sign-on settings form of an owner, read and checked before anything is fetched or
written: each problem keyed by its field. The URLs pass the webhooks' address checks (https, no
private, loopback, link-local or metadata address in any spelling): the server fetches them. Pure
code."""

from collections.abc import Mapping
from dataclasses import dataclass

from shortlink.errors import InvalidUrl
from shortlink.settings.sso import DEFAULT_ROLES
from shortlink.sso.provider_setup import PROTOCOLS, Protocol, ProviderSetup, SsoSetupInvalid
from shortlink.web.outbound_addresses import validate_endpoint_url
from shortlink.web.urls import DestinationPolicy

MAX_LABEL_CHARS = 40
MAX_CLIENT_CHARS = 255
MAX_SECRET_CHARS = 1024
MAX_DOMAINS = 10
MAX_DOMAIN_CHARS = 253
# An uploaded SAML metadata document (Entra's, Okta's and Google's are 2 to 30 KB); the form's own
# limit (64 KB) bounds the request.
MAX_METADATA_CHARS = 48 * 1024
REQUEST_NAME = "an identity provider's document"
MAX_ATTRIBUTE_CHARS = 256
# Where the email is when the form names no attribute: the claim URI Entra ID sends, OIDC's claim.
DEFAULT_EMAIL_ATTRIBUTES = {
    "SAML": "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress",
    "OIDC": "email",
}


@dataclass(frozen=True)
class SetupRequest:
    """A checked form: what to fetch, what to give the pool's provider and what to keep."""

    protocol: Protocol
    button_label: str
    default_role: str
    email_domains: tuple[str, ...]
    email_attribute: str
    issuer: str = ""
    client_id: str = ""
    client_secret: str = ""  # empty: keep the provider's
    metadata_url: str = ""
    metadata_document: str = ""  # an uploaded document; empty with no URL: keep the provider's


def _printable(text: str) -> bool:
    return text.isprintable() and not any(character.isspace() and character != " " for character in text)


def _checked_url(url: str, field: str, errors: dict[str, str], policy: DestinationPolicy, loopback: bool) -> str:
    try:
        href = validate_endpoint_url(url, policy, loopback, REQUEST_NAME)
    except InvalidUrl as error:
        errors[field] = f"{field.replace('_', ' ')}: {str(error).removeprefix('url ')}"
        return ""
    if field == "issuer" and ("?" in href or "#" in href):
        errors[field] = "issuer: an issuer URL has no query or fragment (OpenID Connect Discovery)"
    return href


def email_domain(name: str) -> str | None:
    """A domain of email addresses as kept (lower case, IDN as its ASCII form), or None if it is none."""
    try:
        ascii_name = name.strip().lower().removeprefix("@").removesuffix(".").encode("idna").decode("ascii")
    except UnicodeError:
        return None
    labels = ascii_name.split(".")
    if len(labels) < 2 or len(ascii_name) > MAX_DOMAIN_CHARS:
        return None
    if not all(label and len(label) <= 63 and label.replace("-", "").isalnum() for label in labels):
        return None
    return ascii_name


def _domains(text: str, errors: dict[str, str]) -> tuple[str, ...]:
    found: list[str] = []
    for word in text.replace(",", " ").split():
        ascii_name = email_domain(word)
        if ascii_name is None:
            errors["email_domains"] = f"email domains: {word[:80]!r} is not a domain name (e.g. example.com)"
            return ()
        if ascii_name not in found:
            found.append(ascii_name)
    if len(found) > MAX_DOMAINS:
        errors["email_domains"] = f"email domains: at most {MAX_DOMAINS}"
    return tuple(found)


def setup_request(
    form: Mapping[str, str], current: ProviderSetup | None, policy: DestinationPolicy, loopback: bool = False
) -> SetupRequest:
    """The form's set-up, or SsoSetupInvalid naming every problem. `current` is the saved set-up:
    with the same protocol, an empty secret (OIDC) or no metadata (SAML) keeps the provider's."""
    errors: dict[str, str] = {}
    given = form.get("protocol", "")
    if given not in PROTOCOLS:
        raise SsoSetupInvalid({"protocol": "protocol: choose OIDC or SAML"})
    protocol: Protocol = "OIDC" if given == "OIDC" else "SAML"
    keeps = current is not None and current.protocol == protocol
    label = " ".join(form.get("button_label", "").split())
    if not label or len(label) > MAX_LABEL_CHARS or not label.isprintable():
        errors["button_label"] = f"button label: 1 to {MAX_LABEL_CHARS} printable characters"
    role = form.get("default_role", "")
    if role not in DEFAULT_ROLES:
        errors["default_role"] = f"default role: one of {', '.join(DEFAULT_ROLES)}"
    domains = _domains(form.get("email_domains", ""), errors)
    attribute = form.get("email_attribute", "").strip() or DEFAULT_EMAIL_ATTRIBUTES[protocol]
    if len(attribute) > MAX_ATTRIBUTE_CHARS or not _printable(attribute):
        errors["email_attribute"] = f"email attribute: at most {MAX_ATTRIBUTE_CHARS} printable characters"
    values: dict[str, str] = {}
    if protocol == "OIDC":
        values["issuer"] = _checked_url(form.get("issuer", "").strip(), "issuer", errors, policy, loopback)
        client_id = form.get("client_id", "").strip()
        if not client_id or len(client_id) > MAX_CLIENT_CHARS or not _printable(client_id) or " " in client_id:
            errors["client_id"] = f"client id: 1 to {MAX_CLIENT_CHARS} characters without spaces"
        secret = form.get("client_secret", "")
        if (not secret and not keeps) or len(secret) > MAX_SECRET_CHARS or not _printable(secret):
            errors["client_secret"] = f"client secret: 1 to {MAX_SECRET_CHARS} characters (required the first time)"
        values |= {"client_id": client_id, "client_secret": secret}
    else:
        url, document = form.get("metadata_url", "").strip(), form.get("metadata_document", "").strip()
        if url and document:
            errors["metadata_url"] = "metadata: give its URL or the document, not both"
        elif url:
            values["metadata_url"] = _checked_url(url, "metadata_url", errors, policy, loopback)
        elif len(document) > MAX_METADATA_CHARS:
            errors["metadata_document"] = f"metadata document: at most {MAX_METADATA_CHARS // 1024} KB"
        elif not document and not keeps:
            errors["metadata_url"] = "metadata: give the identity provider's metadata URL or its document"
        values["metadata_document"] = document
    if errors:
        raise SsoSetupInvalid(errors)
    return SetupRequest(protocol, label, role, domains, attribute, **values)
