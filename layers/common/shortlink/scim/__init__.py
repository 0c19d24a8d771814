"""SCIM 2.0 provisioning (RFC 7643/7644) of a workspace's people by its identity provider (Okta,
Microsoft Entra ID): its bearer tokens, the provisioned users and groups, groups mapped to roles,
and what a deactivation ends. Pure code: storage comes in through ports."""
