"""Workspaces' single sign-on set-ups (pynamodb), as items of the API keys table beside their
members: `sso-setup#<workspace>`, and `sso-domain#<domain>` for each email domain a set-up names,
which holds the domain for one workspace (a conditional put, never a look then a write). A set-up
and its domains are written in one transaction, conditioned on the set-up as it was read."""

from pynamodb.attributes import (
    BooleanAttribute,
    NumberAttribute,
    UnicodeAttribute,
    UnicodeSetAttribute,
    UTCDateTimeAttribute,
)
from pynamodb.connection import Connection
from pynamodb.exceptions import DoesNotExist, PynamoDBException
from pynamodb.models import Model
from pynamodb.transactions import TransactWrite

from shortlink.adapters.dynamodb.bound_models import TableMeta, bound_model, error_code, unavailable
from shortlink.sso.provider_setup import ProviderSetup, SsoSetupInvalid, SsoSetupState

SETUP, DOMAIN = "sso_setup", "sso_domain"
CONFLICTS = ("ConditionalCheckFailedException", "TransactionCanceledException")


class SsoSetupItem(Model):
    class Meta(TableMeta):
        pass

    item_key = UnicodeAttribute(hash_key=True, attr_name="key_hash")
    kind = UnicodeAttribute(attr_name="item_kind")
    workspace_id = UnicodeAttribute(attr_name="workspace_id")
    protocol = UnicodeAttribute(attr_name="protocol")
    button_label = UnicodeAttribute(attr_name="button_label")
    default_role = UnicodeAttribute(attr_name="default_role")
    email_domains = UnicodeSetAttribute(null=True, attr_name="email_domains")
    email_attribute = UnicodeAttribute(attr_name="email_attribute")
    issuer = UnicodeAttribute(null=True, attr_name="issuer")
    client_id = UnicodeAttribute(null=True, attr_name="client_id")
    metadata_url = UnicodeAttribute(null=True, attr_name="metadata_url")
    version = NumberAttribute(attr_name="setup_version")
    tested_version = NumberAttribute(attr_name="tested_version")
    tested_by = UnicodeAttribute(null=True, attr_name="tested_by")
    turned_on = BooleanAttribute(attr_name="turned_on")
    updated_at = UTCDateTimeAttribute(attr_name="updated_at")
    updated_by = UnicodeAttribute(attr_name="updated_by")


class SsoDomainItem(Model):
    class Meta(TableMeta):
        pass

    item_key = UnicodeAttribute(hash_key=True, attr_name="key_hash")
    kind = UnicodeAttribute(attr_name="item_kind")
    workspace_id = UnicodeAttribute(attr_name="workspace_id")


def _setup(item: SsoSetupItem) -> ProviderSetup:
    return ProviderSetup(
        workspace_id=item.workspace_id,
        protocol="OIDC" if item.protocol == "OIDC" else "SAML",
        button_label=item.button_label,
        default_role=item.default_role,
        email_domains=tuple(sorted(item.email_domains or ())),
        updated_at=item.updated_at,
        updated_by=item.updated_by,
        email_attribute=item.email_attribute,
        issuer=item.issuer or "",
        client_id=item.client_id or "",
        metadata_url=item.metadata_url or "",
        version=int(item.version),
        tested_version=int(item.tested_version),
        tested_by=item.tested_by or "",
        turned_on=bool(item.turned_on),
    )


class DynamoSsoSetups:
    """Set-ups in the home region's table (a provider turned off is off everywhere at once)."""

    def __init__(self, table_name: str, home_region: str | None = None) -> None:
        self._model = bound_model(SsoSetupItem, table_name, home_region)
        self._domains = bound_model(SsoDomainItem, table_name, home_region)
        self._connection = Connection(region=home_region)

    def get(self, workspace_id: str) -> ProviderSetup | None:
        try:
            return _setup(self._model.get(f"sso-setup#{workspace_id}", consistent_read=True))
        except DoesNotExist:
            return None
        except PynamoDBException as error:
            raise unavailable(error) from error

    def domain_owner(self, domain: str) -> str | None:
        try:
            return str(self._domains.get(f"sso-domain#{domain}", consistent_read=True).workspace_id)
        except DoesNotExist:
            return None
        except PynamoDBException as error:
            raise unavailable(error) from error

    def _item(self, setup: ProviderSetup) -> SsoSetupItem:
        return self._model(
            item_key=f"sso-setup#{setup.workspace_id}", kind=SETUP, workspace_id=setup.workspace_id,
            protocol=setup.protocol, button_label=setup.button_label, default_role=setup.default_role,
            email_domains=set(setup.email_domains) or None, email_attribute=setup.email_attribute,
            issuer=setup.issuer or None, client_id=setup.client_id or None, metadata_url=setup.metadata_url or None,
            version=setup.version, tested_version=setup.tested_version, tested_by=setup.tested_by or None,
            turned_on=setup.turned_on, updated_at=setup.updated_at, updated_by=setup.updated_by,
        )  # fmt: skip

    def _claim(self, domain: str, workspace_id: str) -> SsoDomainItem:
        return self._domains(item_key=f"sso-domain#{domain}", kind=DOMAIN, workspace_id=workspace_id)

    def _as_read(self, previous: ProviderSetup | None) -> object:
        model = self._model
        if previous is None:
            return model.item_key.does_not_exist()
        return (
            (model.version == previous.version)
            & (model.tested_version == previous.tested_version)
            & (model.turned_on == previous.turned_on)
        )

    def save(self, setup: ProviderSetup, previous: ProviderSetup | None) -> None:
        had = set(previous.email_domains) if previous is not None else set()
        workspace = setup.workspace_id
        try:
            with TransactWrite(connection=self._connection) as transaction:
                transaction.save(self._item(setup), condition=self._as_read(previous))  # type: ignore[arg-type]
                for domain in sorted(set(setup.email_domains) - had):
                    claim = self._claim(domain, workspace)
                    transaction.save(claim, condition=self._domains.item_key.does_not_exist())
                for domain in sorted(had - set(setup.email_domains)):
                    claim = self._claim(domain, workspace)
                    transaction.delete(claim, condition=self._domains.workspace_id == workspace)
        except PynamoDBException as error:
            if error_code(error) not in CONFLICTS:
                raise unavailable(error) from error
            taken = [domain for domain in setup.email_domains if self.domain_owner(domain) not in (None, workspace)]
            if taken:
                problem = {"email_domains": f"email domains: {taken[0]} is another workspace's"}
                raise SsoSetupInvalid(problem, 409) from None
            raise SsoSetupState(409, "The single sign-on settings changed meanwhile: reload the page.") from None

    def delete(self, setup: ProviderSetup) -> None:
        workspace = setup.workspace_id
        try:
            with TransactWrite(connection=self._connection) as transaction:
                transaction.delete(self._item(setup))
                for domain in setup.email_domains:
                    claim = self._claim(domain, workspace)
                    transaction.delete(claim, condition=self._domains.workspace_id == workspace)
        except PynamoDBException as error:
            raise unavailable(error) from error
