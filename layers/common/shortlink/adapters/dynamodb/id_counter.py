"""The id counter (pynamodb), from which the code generator reserves blocks of ids."""

from pynamodb.exceptions import PynamoDBException

from shortlink.adapters.dynamodb.bound_models import bound_model, unavailable
from shortlink.adapters.dynamodb.counter_item import CounterItem
from shortlink.codes.partitions import SINGLE_COUNTER


class DynamoCounterStore:
    """The id counter: one item, one `UpdateItem ADD ... RETURN UPDATED_NEW` per block."""

    def __init__(self, table_name: str, counter_name: str = SINGLE_COUNTER) -> None:
        self._model = bound_model(CounterItem, table_name)
        self._counter_name = counter_name

    def reserve(self, count: int) -> int:
        item = self._model(name=self._counter_name)
        try:
            item.update(actions=[self._model.value.add(count)])
        except PynamoDBException as error:
            raise unavailable(error) from error
        return int(item.value)
