"""The AdminCreateUser calls the Cognito invitation sender makes, recorded with botocore's event
hooks as they leave (moto keeps no ClientMetadata)."""

from typing import Any

import pytest

from shortlink.adapters.botocore_clients import botocore_client
from shortlink.adapters.cognito import invitation_accounts


def recorded_account_creations(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """Each AdminCreateUser's parameters, in order, from the clients the sender makes from now on."""
    calls: list[dict[str, Any]] = []

    def record(params: dict[str, Any], **_: Any) -> None:
        calls.append(dict(params))

    def recording_client(*args: Any, **kwargs: Any) -> Any:
        client = botocore_client(*args, **kwargs)
        client.meta.events.register("provide-client-params.cognito-idp.AdminCreateUser", record)
        return client

    monkeypatch.setattr(invitation_accounts, "botocore_client", recording_client)
    return calls
