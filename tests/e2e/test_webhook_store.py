"""The webhook endpoints' store against moto and dynalite (which refuses what DynamoDB refuses
and moto lets pass): an edit and a secret rotation are one conditional update each, and of two
made from the same read only the first is written."""

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from shortlink.adapters.dynamodb.webhooks import DynamoEndpointStore
from shortlink.webhooks.endpoints import Endpoint, EndpointChanged, EndpointNotFound, edited, new_secret, rotated
from tests.e2e.store_tables import template_table_on

NOW = datetime.now(UTC).replace(microsecond=0)


@pytest.fixture
def endpoints(store: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> Iterator[DynamoEndpointStore]:
    """The template's webhooks table on this store."""
    for table in template_table_on(store, monkeypatch, "WebhooksTable"):
        yield DynamoEndpointStore(table)


def test_an_edit_and_a_rotation_are_written_once_from_the_endpoint_read(endpoints):
    store = endpoints
    endpoint = Endpoint(
        "acct", "ep_" + "1" * 32, "https://hooks.example.com/a", ("link.created",), ("a",), new_secret(), NOW
    )
    store.add(endpoint, 10)
    store.disable(endpoint.owner, endpoint.endpoint_id, NOW)
    read = store.get(endpoint.owner, endpoint.endpoint_id)
    assert read is not None
    assert read.disabled_at is not None
    # An edit: a new address, no tag, enabled again
    changed, fields = edited(read, "https://hooks.example.com/b", None, [], enable=True)
    assert fields == ("url", "tags", "enabled")
    assert store.replace(read, changed) == changed
    assert store.get(endpoint.owner, endpoint.endpoint_id) == changed
    # A rotation from that read, then another from the same (now stale) read: the second loses
    turned = store.replace(changed, rotated(changed, NOW))
    assert (turned.previous_secret, turned.previous_secret_until) == (endpoint.secret, NOW + timedelta(hours=24))
    with pytest.raises(EndpointChanged):
        store.replace(changed, rotated(changed, NOW))
    assert store.get(endpoint.owner, endpoint.endpoint_id) == turned
    # And one that is gone is not found
    store.delete(endpoint.owner, endpoint.endpoint_id)
    with pytest.raises(EndpointNotFound):
        store.replace(turned, rotated(turned, NOW))
