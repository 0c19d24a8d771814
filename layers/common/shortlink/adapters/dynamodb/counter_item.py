"""The counters table's item: the id counter's and the rate limits' (windows and attempt logs)."""

from pynamodb.attributes import ListAttribute, NumberAttribute, UnicodeAttribute
from pynamodb.models import Model

from shortlink.adapters.dynamodb.bound_models import TableMeta


class CounterItem(Model):
    class Meta(TableMeta):
        pass

    name = UnicodeAttribute(hash_key=True)
    value = NumberAttribute(default=0)
    expires_at_epoch = NumberAttribute(null=True)  # the table's TTL attribute (rate windows)
    attempts = ListAttribute[NumberAttribute](of=NumberAttribute, null=True)  # an attempt log's times
    version = NumberAttribute(null=True)  # an attempt log's, one more on each write
