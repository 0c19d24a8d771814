"""Rate limits (pynamodb): fixed windows and attempt logs, in the counters table."""

from typing import Any, cast

from pynamodb.exceptions import DoesNotExist, PynamoDBException

from shortlink.adapters.dynamodb.bound_models import bound_model, error_code, unavailable
from shortlink.adapters.dynamodb.counter_item import CounterItem


class DynamoWindowCounter:
    """Rate limits in the counters table: fixed windows (one conditional `ADD` per use) and
    attempt logs (one item per subject: a GetItem, then an UpdateItem conditional on its version).
    In a deployment of several regions a limit is counted either in items of this region's own
    (`region`: a last suffix of the key, never written by another region: the limit holds per
    region, so at most regions x limit in all), or in the home region's table (`home_region`:
    every region counts in the same items there, conditionally, so the limit holds in total)."""

    def __init__(self, table_name: str, region: str | None = None, *, home_region: str | None = None) -> None:
        self._model = bound_model(CounterItem, table_name, home_region)
        self._suffix = f"#{region}" if region else ""

    def _window(self, subject: str, window: int) -> "CounterItem":
        return self._model(name=f"{subject}#{window}{self._suffix}")

    def take(self, subject: str, window: int, limit: int, expires_at_epoch: int) -> bool:
        item = self._window(subject, window)
        try:
            item.update(
                actions=[self._model.value.add(1), self._model.expires_at_epoch.set(expires_at_epoch)],
                condition=self._model.value.does_not_exist() | (self._model.value < limit),
            )
        except PynamoDBException as error:
            if error_code(error) == "ConditionalCheckFailedException":
                return False
            raise unavailable(error) from error
        return True

    def attempts(self, subject: str) -> tuple[list[float], int]:
        """An attempt log (shortlink.access.rate_limits.AttemptLog): one consistent GetItem."""
        try:
            item = self._model.get(f"{subject}#log{self._suffix}", consistent_read=True)
        except DoesNotExist:
            return [], 0
        except PynamoDBException as error:
            raise unavailable(error) from error
        return [float(time) for time in cast(list[float], item.attempts or [])], int(item.version or 0)

    def record_attempts(self, subject: str, times: list[float], version: int, expires_at_epoch: int) -> bool:
        """One UpdateItem on the condition that the log is still at `version`."""
        model = self._model
        actions: list[Any] = [
            model.attempts.set(cast(Any, times)),  # pynamodb's stubs type a list of numbers as attributes
            model.version.set(version + 1),
            model.expires_at_epoch.set(expires_at_epoch),
        ]
        condition = model.name.does_not_exist() if version == 0 else model.version == version
        try:
            model(name=f"{subject}#log{self._suffix}").update(actions=actions, condition=condition)
        except PynamoDBException as error:
            if error_code(error) == "ConditionalCheckFailedException":
                return False
            raise unavailable(error) from error
        return True

    def give_back(self, subject: str, window: int) -> None:
        item = self._window(subject, window)
        try:
            item.update(actions=[self._model.value.add(-1)], condition=self._model.value > 0)
        except PynamoDBException as error:
            if error_code(error) != "ConditionalCheckFailedException":
                raise unavailable(error) from error
