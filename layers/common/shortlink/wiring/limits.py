"""The rate-limit windows (creates, sign-ins, password attempts): this region's counters."""

from typing import TYPE_CHECKING

from shortlink.wiring.environment import regions, resources
from shortlink.wiring.factories import factory

if TYPE_CHECKING:
    from shortlink.adapters.dynamodb.rate_windows import DynamoWindowCounter


@factory
def window_counter() -> "DynamoWindowCounter":
    """The counters of rate-limit windows."""
    from shortlink.adapters.dynamodb.rate_windows import DynamoWindowCounter

    # Several regions: windows of this region's own (a global table would lose concurrent ADDs).
    return DynamoWindowCounter(resources().counters_table.value, regions().region_name)
