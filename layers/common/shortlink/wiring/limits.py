"""The rate-limit windows: the create rate limit in this region's counters, the limits that bound
guesses (sign-ins, password attempts) in the home region's (docs/regions.md)."""

from typing import TYPE_CHECKING

from shortlink.wiring.environment import regions, resources
from shortlink.wiring.factories import factory

if TYPE_CHECKING:
    from shortlink.adapters.dynamodb.rate_windows import DynamoWindowCounter


@factory
def window_counter() -> "DynamoWindowCounter":
    """The create rate limit's windows: this region's own (no cross-region call on a create of a
    generated code), so regions x the limit in all (docs/regions.md)."""
    from shortlink.adapters.dynamodb.rate_windows import DynamoWindowCounter

    # Several regions: windows of this region's own (a global table would lose concurrent ADDs).
    return DynamoWindowCounter(resources().counters_table.value, regions().region_name)


@factory
def attempt_log() -> "DynamoWindowCounter":
    """The limits that bound guesses (passwords, sign-ins, an SSO state's one use), counted in the
    home region's items: exact however the attempts spread over the regions, one cross-region
    round trip per attempt away from home."""
    from shortlink.adapters.dynamodb.rate_windows import DynamoWindowCounter

    return DynamoWindowCounter(resources().counters_table.value, home_region=regions().home_region_name)
