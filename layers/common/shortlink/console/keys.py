"""The account's API keys: listed, made (as `POST /keys` makes them) and revoked."""

from typing import Any

from aws_lambda_powertools import Logger
from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from shortlink.access.api_keys import ADMIN, issue_account_key
from shortlink.api.key_views import CreatedKey, KeyView
from shortlink.console import audit, forms
from shortlink.console.key_form import key_request
from shortlink.console.pages import see_other
from shortlink.console.plumbing import confirm_first, now, posted_by_session, requiring, shown
from shortlink.console.sessions import Session
from shortlink.errors import ApiKeyNotFound, InvalidApiKeyOption, ScopeNotGrantable
from shortlink.people.actors import Actor
from shortlink.wiring import api_key_store

SCOPE_MEANINGS = (
    ("links:read", "see links and their settings"),
    ("links:write", "create, edit, delete and restore links"),
    ("stats:read", "read clicks and analytics"),
    ("admin", "manage this account's keys and webhooks"),
    ("members:read", "see the members and open invitations"),
    ("members:write", "invite, change and remove members of roles the key holds the scopes of"),
)

logger = Logger()
router = APIGatewayHttpRouter()  # type: ignore[no-untyped-call]  # Powertools leaves it untyped


def keys_page(
    key: Actor, current: Session, state: forms.FormState, status: int = 200, created: CreatedKey | None = None
) -> Response[Any]:
    listed = [KeyView.of(each, now()).model_dump(mode="json") for each in api_key_store().list_keys(owner=key.owner)]
    chosen = state.values.get("scopes", []) if state.values else ["links:read"]
    return shown(
        "keys.html", key, current, status, keys=listed, form=state, created=created,
        scopes=SCOPE_MEANINGS, chosen_scopes=chosen,
    )  # fmt: skip


@router.get("/console/keys")
def keys() -> Response[Any]:
    current, key = requiring(ADMIN)
    return keys_page(key, current, forms.FormState())


@router.post("/console/keys")
def create_key() -> Response[Any]:
    """A new key of the account, as `POST /keys` makes it; its clear text is on this page only."""
    form, current, key = posted_by_session(ADMIN)
    try:
        request = key_request(form)
        scopes = frozenset(request.scopes)
        made, plaintext = issue_account_key(api_key_store(), key, request.name, scopes, request.expires_at, now())
    except forms.FormErrors as error:
        return keys_page(key, current, forms.FormState(form, error.errors), 422)
    except InvalidApiKeyOption as error:
        return keys_page(key, current, forms.FormState(form, {error.field: str(error)}), 422)
    except ScopeNotGrantable as error:
        message = f"scopes: this key cannot grant {error.scope}, which it lacks"
        return keys_page(key, current, forms.FormState(form, {"scopes": message}), 422)
    audit.record(key, "key.created", made.key_id)
    logger.info("API key created", extra={"key_id": made.key_id, "by": key.id, "scopes": sorted(scopes)})
    created = CreatedKey(**KeyView.of(made, now()).model_dump(), key=plaintext)
    return keys_page(key, current, forms.FormState(), 201, created)


@router.post("/console/keys/<key_id>/revoke")
def revoke_key(key_id: str) -> Response[Any]:
    form, current, key = posted_by_session(ADMIN)
    found = next((each for each in api_key_store().list_keys(owner=key.owner) if each.key_id == key_id), None)
    if found is None:
        raise ApiKeyNotFound(key_id)
    question = f"Revoke the key {found.name} ({found.key_id})? It stops working at once, for good."
    if (asking := confirm_first(form, key, current, question, "Revoke", "/console/keys")) is not None:
        return asking
    if not api_key_store().revoke(key_id, owner=key.owner):
        raise ApiKeyNotFound(key_id)
    audit.record(key, "key.revoked", key_id)
    logger.info("API key revoked", extra={"key_id": key_id, "by": key.id})
    return see_other("/console/keys")
