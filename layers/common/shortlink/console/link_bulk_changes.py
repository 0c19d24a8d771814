"""The links list's bulk form: the links ticked in the list, one change to all of them, through
the API's bulk change (the same request model, the same commands): all written or none."""

from typing import Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter
from pydantic import ValidationError

from shortlink.api.bulk_change_requests import BulkChangeRequest, refused_links
from shortlink.api.errors import describe_validation_errors
from shortlink.api.link_commands import commands_of
from shortlink.api.link_presentation import requested_key
from shortlink.commands.bulk import change_links
from shortlink.console import audit, forms
from shortlink.console.pages import see_other
from shortlink.console.plumbing import Refused, destinations, posted_by_session, shown, view
from shortlink.links.bulk import BulkRefused
from shortlink.wiring import link_batch, link_domains, short_domains

router = APIGatewayHttpRouter()  # type: ignore[no-untyped-call]  # Powertools leaves it untyped


def request_of(form: forms.Form) -> BulkChangeRequest:
    """The form as the API's request: each ticked link's `<domain>/<code>`, the action and its fields."""
    ticked = [item.rpartition("/") for item in form.get("selected", [])]
    body: dict[str, Any] = {
        "links": [{"code": code, "domain": domain or None} for domain, _, code in ticked] or None,
        "action": forms.value(form, "action"),
    }
    for name in ("add_tags", "remove_tags"):
        if tags := forms.words(forms.value(form, name)):
            body[name] = tags
    if expires_at := forms.moment_value(form, "expires_at"):
        body["expires_at"] = expires_at
    if to_domain := forms.value(form, "to_domain"):
        body["to_domain"] = to_domain
    try:
        return BulkChangeRequest.model_validate(body)
    except ValidationError as error:
        raise Refused(422, describe_validation_errors(list(error.errors()), location_prefix=0)) from None


@router.post("/console/links/bulk/changes")
def change_many() -> Response[Any]:
    form, current, key = posted_by_session("links:write")
    if not form.get("selected"):
        raise Refused(422, "tick at least one link in the list, then choose the change")
    request = request_of(form)
    domains = link_domains(key.owner)
    keys = [requested_key(link.code, link.domain, domains) for link in request.links or ()]
    batch = link_batch()
    try:
        written = change_links(
            commands_of(audit.origin(key), destinations, view, batch), batch, keys, request.change(domains)
        )
    except BulkRefused as refused:
        rows = refused_links(refused, short_domains())
        return shown("links_bulk.html", key, current, 422, refused=rows, action=request.action)
    return see_other(f"/console?changed={len(written)}")
