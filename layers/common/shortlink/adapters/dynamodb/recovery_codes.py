"""People's recovery codes (shortlink.people.recovery_codes), one item per person in the API
keys table, `recovery#<subject>`, beside their `person#` item and in the home region's table
(a code spent in one region must be spent everywhere at once): a string set of the codes'
HMACs, from which a sign-in deletes the one it spends, on condition that it is there."""

from pynamodb.attributes import UnicodeAttribute, UnicodeSetAttribute
from pynamodb.exceptions import DoesNotExist, PynamoDBException, UpdateError
from pynamodb.models import Model

from shortlink.adapters.dynamodb.bound_models import TableMeta, bound_model, error_code, unavailable


class RecoveryCodesItem(Model):
    class Meta(TableMeta):
        pass

    item_key = UnicodeAttribute(hash_key=True, attr_name="key_hash")  # the table's key
    kind = UnicodeAttribute(attr_name="item_kind")
    codes = UnicodeSetAttribute(null=True, attr_name="code_hashes")


RECOVERY_CODES = "recovery_codes"


class DynamoRecoveryCodes:
    def __init__(self, table_name: str, home_region: str | None = None) -> None:
        self._model = bound_model(RecoveryCodesItem, table_name, home_region)

    def replace(self, subject: str, hashes: set[str]) -> None:
        try:
            self._model(item_key=f"recovery#{subject}", kind=RECOVERY_CODES, codes=hashes).save()
        except PynamoDBException as error:
            raise unavailable(error) from error

    def spend(self, subject: str, code_hash: str) -> bool:
        model = self._model
        try:
            model(item_key=f"recovery#{subject}").update(
                actions=[model.codes.delete({code_hash})], condition=model.codes.contains(code_hash)
            )
        except UpdateError as error:
            if error_code(error) == "ConditionalCheckFailedException":
                return False
            raise unavailable(error) from error
        except PynamoDBException as error:
            raise unavailable(error) from error
        return True

    def remaining(self, subject: str) -> int:
        try:
            found = self._model.get(f"recovery#{subject}", consistent_read=True)
        except DoesNotExist:
            return 0
        except PynamoDBException as error:
            raise unavailable(error) from error
        return len(found.codes or ())

    def clear(self, subject: str) -> None:
        try:
            self._model(item_key=f"recovery#{subject}").delete()
        except PynamoDBException as error:
            raise unavailable(error) from error
