"""sso.yaml, the single sign-on nested stack: what it creates for a SAML or an OIDC identity
provider, rendered as CloudFormation would for the parameters given."""

from pathlib import Path
from typing import Any

import cfnlint.api
import pytest

from tests.integration.test_template import Rendered

ROOT = Path(__file__).resolve().parents[2]
POOL = "eu-west-1_AbCdEf123"
COMMON = {
    "UserPoolId": POOL,
    "StackName": "shortlink-prod",
    "DomainPrefix": "acme-links",
    "CallbackUrl": "https://sho.rt/console/sso/callback",
}
ENTRA = {
    **COMMON,
    "ProviderType": "SAML",
    "ProviderName": "Entra",
    "Metadata": "https://login.microsoftonline.com/tenant/federationmetadata/2007-06/federationmetadata.xml?appid=1",
}
OKTA_OIDC = {
    **COMMON,
    "ProviderType": "OIDC",
    "ProviderName": "Okta",
    "OidcIssuer": "https://acme.okta.com",
    "OidcClientId": "0oa1example",
    "OidcClientSecretName": "shortlink/okta-client-secret",
}


def rendered(parameters: dict[str, str]) -> dict[str, Any]:
    return Rendered(parameters, region="eu-west-1", path="sso.yaml").resources()


def broken_rules(parameters: dict[str, str]) -> set[str]:
    template = Rendered(parameters, region="eu-west-1", path="sso.yaml")
    return {
        name
        for name, rule in template.template["Rules"].items()
        if template.value(rule["RuleCondition"])
        and not all(template.value(assertion["Assert"]) for assertion in rule["Assertions"])
    }


def test_cfn_lint_finds_nothing():
    assert [str(match) for match in cfnlint.api.lint_file(ROOT / "sso.yaml")] == []


def test_a_saml_provider_comes_from_its_metadata_url_and_maps_the_email_claim():
    provider = rendered(ENTRA)["IdentityProvider"]["Properties"]
    assert provider["UserPoolId"] == POOL
    assert provider["ProviderType"] == "SAML"
    assert provider["ProviderDetails"] == {"MetadataURL": ENTRA["Metadata"], "IDPSignout": "false"}
    assert provider["AttributeMapping"] == {
        "email": "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress"
    }


def test_a_saml_provider_that_offers_only_a_download_takes_the_document_and_its_attribute_name():
    # The document names https:// URLs itself: only a value that starts with one is a URL.
    document = '<md:EntityDescriptor entityID="https://accounts.google.com/o/saml2?idpid=C0"/>'
    google = {**COMMON, "ProviderType": "SAML", "ProviderName": "Google", "Metadata": document}
    provider = rendered({**google, "EmailAttribute": "email"})["IdentityProvider"]["Properties"]
    assert provider["ProviderDetails"] == {"MetadataFile": document, "IDPSignout": "false"}
    assert provider["AttributeMapping"] == {"email": "email"}


def test_an_oidc_providers_client_secret_is_read_from_secrets_manager_and_no_parameter_holds_one():
    provider = rendered(OKTA_OIDC)["IdentityProvider"]["Properties"]
    assert provider["ProviderType"] == "OIDC"
    details = provider["ProviderDetails"]
    assert details["client_secret"] == "{{resolve:secretsmanager:shortlink/okta-client-secret}}"
    assert details["client_id"] == "0oa1example"
    assert details["oidc_issuer"] == "https://acme.okta.com"
    assert set(details["authorize_scopes"].split()) == {"openid", "email", "profile"}
    assert provider["AttributeMapping"] == {"email": "email"}
    template = Rendered({}, path="sso.yaml").template
    for name, parameter in template["Parameters"].items():
        if "secret" in name.lower():
            assert parameter.get("Default", "") == "", name


@pytest.mark.parametrize("parameters", [ENTRA, OKTA_OIDC])
def test_the_console_client_takes_codes_with_pkce_only_from_the_provider_back_to_the_console(parameters):
    resources = rendered(parameters)
    client = resources["SsoClient"]["Properties"]
    assert client["AllowedOAuthFlows"] == ["code"]
    assert client["AllowedOAuthFlowsUserPoolClient"] is True
    assert client["GenerateSecret"] is False  # a public client: PKCE proves the code is its own
    assert set(client["AllowedOAuthScopes"]) == {"openid", "email", "profile"}
    assert client["CallbackURLs"] == ["https://sho.rt/console/sso/callback"]
    # By the provider's Ref (its name): the provider is made first
    assert client["SupportedIdentityProviders"] == [{"Ref": "IdentityProvider"}]
    domain = resources["Domain"]["Properties"]
    assert domain == {"UserPoolId": POOL, "Domain": "acme-links", "ManagedLoginVersion": 2}
    branding = resources["SsoClientBranding"]["Properties"]
    assert branding == {"UserPoolId": POOL, "ClientId": {"Ref": "SsoClient"}, "UseCognitoProvidedValues": True}


def test_console_makes_the_managed_login_and_client_without_a_provider_for_owners_to_add_theirs():
    resources = rendered({**COMMON, "ProviderType": "Console", "ProviderName": "Console"})
    assert "IdentityProvider" not in resources
    assert resources["SsoClient"]["Properties"]["SupportedIdentityProviders"] == ["COGNITO"]
    assert {"Domain", "SsoClientBranding"} <= set(resources)


def test_the_values_an_identity_provider_needs_are_outputs():
    template = Rendered(ENTRA, region="eu-west-1", path="sso.yaml")
    outputs = {name: template.value(output["Value"]) for name, output in template.template["Outputs"].items()}
    assert outputs["SamlAcsUrl"] == "https://acme-links.auth.eu-west-1.amazoncognito.com/saml2/idpresponse"
    assert outputs["SamlEntityId"] == f"urn:amazon:cognito:sp:{POOL}"
    assert outputs["OidcRedirectUrl"] == "https://acme-links.auth.eu-west-1.amazoncognito.com/oauth2/idpresponse"
    assert outputs["LoginUrl"] == "https://acme-links.auth.eu-west-1.amazoncognito.com"
    assert outputs["Issuer"] == f"https://cognito-idp.eu-west-1.amazonaws.com/{POOL}"


@pytest.mark.parametrize(
    ("parameters", "broken"),
    [
        (ENTRA, set()),
        (OKTA_OIDC, set()),
        ({**ENTRA, "Metadata": ""}, {"SamlNeedsMetadata"}),
        ({**OKTA_OIDC, "OidcClientSecretName": ""}, {"OidcNeedsClient"}),
    ],
)
def test_a_provider_without_what_its_protocol_needs_is_refused_before_the_deploy_starts(parameters, broken):
    assert broken_rules(parameters) == broken


SSO_PARAMETERS = {
    "DomainName": "sho.rt",
    "CertificateArn": "arn:aws:acm:us-east-1:123456789012:certificate/1",
    "SsoProviderType": "SAML",
    "SsoProviderName": "Entra",
    "SsoButtonLabel": "Example Corp",
    "SsoDomainPrefix": "acme-links",
    "SsoMetadata": ENTRA["Metadata"],
    "SsoWorkspace": "acme",
}


def console_variables(resources: dict[str, Any]) -> dict[str, Any]:
    variables: dict[str, Any] = resources["ConsoleFunction"]["Properties"]["Environment"]["Variables"]
    return {name: value for name, value in variables.items() if name.startswith("SSO_")}


def test_without_a_provider_type_the_stack_has_no_sso_and_the_console_no_button():
    resources = Rendered({}).resources()
    assert "Sso" not in resources
    assert console_variables(resources)["SSO_PROVIDER_NAME"] == ""


def test_with_a_provider_the_nested_stack_gets_the_pool_and_the_console_its_outputs():
    resources = Rendered(SSO_PARAMETERS).resources()
    nested = resources["Sso"]["Properties"]
    assert nested["Location"] == "sso.yaml"
    parameters = nested["Parameters"]
    assert parameters["UserPoolId"] == {"Fn::GetAtt": ["People", "Outputs.UserPoolId"]}
    assert parameters["CallbackUrl"] == "https://sho.rt/console/sso/callback"
    assert (parameters["ProviderType"], parameters["ProviderName"], parameters["Metadata"]) == (
        "SAML",
        "Entra",
        ENTRA["Metadata"],
    )
    assert console_variables(resources) == {
        "SSO_PROVIDER_NAME": "Entra",
        "SSO_BUTTON_LABEL": "Example Corp",
        "SSO_LOGIN_URL": {"Fn::GetAtt": ["Sso", "Outputs.LoginUrl"]},
        "SSO_CLIENT_ID": {"Fn::GetAtt": ["Sso", "Outputs.ClientId"]},
        "SSO_ISSUER": {"Fn::GetAtt": ["Sso", "Outputs.Issuer"]},
        "SSO_WORKSPACE": "acme",
        "SSO_DEFAULT_ROLE": "viewer",
    }
    # A pool of the customer's own is federated instead of the People stack's; a base URL of
    # the customer's proxy holds the callback when the stack has no domain.
    own = Rendered(
        {**SSO_PARAMETERS, "ExistingUserPoolId": POOL, "DomainName": "", "PublicBaseUrl": "https://l.example"}
    )
    parameters = own.resources()["Sso"]["Properties"]["Parameters"]
    assert (parameters["UserPoolId"], parameters["CallbackUrl"]) == (POOL, "https://l.example/console/sso/callback")


def test_console_sso_gives_the_console_the_managed_login_and_exactly_the_providers_actions_on_the_pool():
    console = {"SsoProviderType": "Console", "SsoDomainPrefix": "acme-links", "PublicBaseUrl": "https://l.example"}
    resources = Rendered(console).resources()
    variables = console_variables(resources)
    assert variables["SSO_PROVIDER_NAME"] == ""  # no deploy-time button
    assert variables["SSO_LOGIN_URL"] == {"Fn::GetAtt": ["Sso", "Outputs.LoginUrl"]}
    assert variables["SSO_CLIENT_ID"] == {"Fn::GetAtt": ["Sso", "Outputs.ClientId"]}
    statements = resources["ConsoleFunction"]["Properties"]["Policies"][0]["Statement"]
    provider_actions = [
        set(statement["Action"])
        for statement in statements
        if isinstance(statement, dict) and "cognito-idp:CreateIdentityProvider" in statement.get("Action", [])
    ]
    assert provider_actions == [
        {
            "cognito-idp:CreateIdentityProvider",
            "cognito-idp:UpdateIdentityProvider",
            "cognito-idp:DeleteIdentityProvider",
            "cognito-idp:DescribeIdentityProvider",
            "cognito-idp:DescribeUserPoolClient",
            "cognito-idp:UpdateUserPoolClient",
        }
    ]
    without = Rendered({}).resources()["ConsoleFunction"]["Properties"]["Policies"][0]["Statement"]
    assert not any("cognito-idp:UpdateUserPoolClient" in str(statement) for statement in without)


@pytest.mark.parametrize(
    ("parameters", "broken"),
    [
        ({}, set()),
        (SSO_PARAMETERS, set()),
        ({**SSO_PARAMETERS, "SsoWorkspace": ""}, {"SsoNeedsItsNames"}),
        ({"SsoProviderType": "Console", "SsoDomainPrefix": "acme-links", "PublicBaseUrl": "https://l.example"}, set()),
        ({"SsoProviderType": "Console", "PublicBaseUrl": "https://l.example"}, {"SsoNeedsItsNames"}),
        ({**SSO_PARAMETERS, "SsoDomainPrefix": ""}, {"SsoNeedsItsNames"}),
        ({**SSO_PARAMETERS, "DomainName": ""}, {"SsoNeedsItsNames"}),
        ({**SSO_PARAMETERS, "DomainName": "", "PublicBaseUrl": "https://links.example"}, set()),
    ],
)
def test_sso_without_its_names_is_refused_before_the_deploy_starts(parameters, broken):
    template = Rendered(parameters)
    failing = {
        name
        for name, rule in template.template["Rules"].items()
        if name.startswith("Sso")
        and template.value(rule["RuleCondition"])
        and not all(template.value(assertion["Assert"]) for assertion in rule["Assertions"])
    }
    assert failing == broken
