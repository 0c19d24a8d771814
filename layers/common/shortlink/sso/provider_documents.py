"""What an identity provider publishes about itself, read before the pool's provider is made: an
OpenID provider's discovery document, or a SAML IdP's metadata (parsed by defusedxml: no DTD, no
entity, no external reference). A document that is not one names the problem; nothing is made."""

import json
from typing import Any

from shortlink.sso.provider_setup import SsoSetupInvalid

DISCOVERY_PATH = "/.well-known/openid-configuration"
MAX_DISCOVERY_BYTES = 64 * 1024
MAX_METADATA_BYTES = 256 * 1024
SAML_METADATA = "urn:oasis:names:tc:SAML:2.0:metadata"
XML_SIGNATURE = "http://www.w3.org/2000/09/xmldsig#"


def discovery_url(issuer: str) -> str:
    """Where an issuer's discovery document is (OpenID Connect Discovery 1.0, section 4)."""
    return f"{issuer.rstrip('/')}{DISCOVERY_PATH}"


def checked_discovery(issuer: str, document: bytes) -> dict[str, Any]:
    """The discovery document of `issuer`, if it is one: JSON naming this issuer and its
    authorization, token and key set endpoints over the issuer's scheme (https, but for the
    local stack's loopback provider)."""
    try:
        found = json.loads(document)
    except ValueError:
        found = None
    if not isinstance(found, dict):
        raise SsoSetupInvalid({"issuer": f"issuer: {discovery_url(issuer)} is not a discovery document (JSON)"})
    if str(found.get("issuer", "")).rstrip("/") != issuer.rstrip("/"):
        named = str(found.get("issuer", ""))[:120]
        raise SsoSetupInvalid({"issuer": f"issuer: the discovery document names another issuer ({named!r})"})
    scheme = issuer.partition("://")[0]
    for endpoint in ("authorization_endpoint", "token_endpoint", "jwks_uri"):
        value = found.get(endpoint)
        if not isinstance(value, str) or not value.startswith(f"{scheme}://"):
            raise SsoSetupInvalid({"issuer": f"issuer: the discovery document has no {scheme} {endpoint}"})
    return found


def _metadata_invalid(field: str, problem: str) -> SsoSetupInvalid:
    return SsoSetupInvalid({field: f"metadata: {problem}"})


def saml_entity_id(document: bytes | str, field: str = "metadata_url") -> str:
    """The entity id of a SAML IdP's metadata, if it is one: an EntityDescriptor with an
    IDPSSODescriptor that has a single sign-on service and a signing certificate."""
    from xml.etree.ElementTree import ParseError

    from defusedxml import DefusedXmlException
    from defusedxml.ElementTree import fromstring

    try:
        root = fromstring(document, forbid_dtd=True)
    except DefusedXmlException:
        raise _metadata_invalid(field, "the document declares a DTD or entities, which are refused") from None
    except ParseError as error:
        raise _metadata_invalid(field, f"not well-formed XML ({error})") from None
    if root.tag != f"{{{SAML_METADATA}}}EntityDescriptor" or not root.get("entityID"):
        raise _metadata_invalid(field, "not a SAML 2.0 EntityDescriptor with an entityID")
    idp = root.find(f"{{{SAML_METADATA}}}IDPSSODescriptor")
    if idp is None:
        raise _metadata_invalid(field, "the entity is no identity provider (no IDPSSODescriptor)")
    if idp.find(f"{{{SAML_METADATA}}}SingleSignOnService") is None:
        raise _metadata_invalid(field, "the identity provider has no SingleSignOnService")
    signing = [
        key
        for key in idp.findall(f"{{{SAML_METADATA}}}KeyDescriptor")
        if key.get("use", "signing") == "signing" and key.find(f".//{{{XML_SIGNATURE}}}X509Certificate") is not None
    ]
    if not signing:
        raise _metadata_invalid(field, "the identity provider has no signing certificate")
    return str(root.get("entityID"))
