"""QR code styles (pynamodb), as items of the API keys table beside the workspace's other items:
`qr-style#<workspace>` its default, `qr-style#<workspace>#<link key>` a link's own. Written and
read in the home region, where the workspace's settings live."""

from pynamodb.attributes import BinaryAttribute, NumberAttribute, UnicodeAttribute
from pynamodb.exceptions import PynamoDBException
from pynamodb.models import Model

from shortlink.adapters.dynamodb.bound_models import TableMeta, bound_model, unavailable
from shortlink.links.qr_styles import QrStyle

QR_STYLE = "qr-style"


class QrStyleItem(Model):
    class Meta(TableMeta):
        pass

    item_key = UnicodeAttribute(hash_key=True, attr_name="key_hash")  # the table's key
    kind = UnicodeAttribute(attr_name="item_kind")
    dark = UnicodeAttribute(attr_name="qr_dark")
    light = UnicodeAttribute(attr_name="qr_light")
    margin = NumberAttribute(attr_name="qr_margin")
    logo = BinaryAttribute(attr_name="qr_logo", null=True, legacy_encoding=False)


def style_key(owner: str, link_key: str | None) -> str:
    return f"{QR_STYLE}#{owner}" + (f"#{link_key}" if link_key is not None else "")


class DynamoQrStyles:
    """QrStyles over the API keys table."""

    def __init__(self, table_name: str, home_region: str | None = None) -> None:
        self._items = bound_model(QrStyleItem, table_name, home_region)

    def style_of(self, owner: str, link_key: str | None) -> QrStyle | None:
        try:
            item = self._items.get(style_key(owner, link_key), consistent_read=True)
        except self._items.DoesNotExist:
            return None
        except PynamoDBException as error:
            raise unavailable(error) from error
        return QrStyle(item.dark, item.light, int(item.margin), item.logo)

    def save(self, owner: str, link_key: str | None, style: QrStyle) -> None:
        key = style_key(owner, link_key)
        item = self._items(item_key=key, kind=QR_STYLE, dark=style.dark, light=style.light, margin=style.margin)
        item.logo = style.logo
        try:
            item.save()
        except PynamoDBException as error:
            raise unavailable(error) from error

    def forget(self, owner: str, link_key: str | None) -> None:
        try:
            self._items(item_key=style_key(owner, link_key)).delete()
        except PynamoDBException as error:
            raise unavailable(error) from error
