"""What every console route shares: its session and who is behind it (a key or a person: an
Actor, whose scopes every page checks), the form of a state-changing request with its CSRF
check, the page of a signed-in actor, and the error pages."""

import base64
from datetime import UTC, datetime
from typing import Any, cast
from urllib.parse import parse_qs

from aws_lambda_powertools import Logger
from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response
from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter
from aws_lambda_powertools.utilities.data_classes import APIGatewayProxyEventV2

from shortlink.access.api_keys import ApiKey, writes
from shortlink.api.link_presentation import destination_policy, link_view, requested_key
from shortlink.console import forms
from shortlink.console.error_pages import error_page
from shortlink.console.pages import ended_session_cookie, link_path, page, see_other
from shortlink.console.sessions import Session, cookie_value, is_current, is_same_origin, read_session
from shortlink.console.uploads import Upload, is_multipart, multipart_form
from shortlink.errors import ShortlinkError
from shortlink.links.model import Link
from shortlink.links.use_cases import owned_link
from shortlink.people.activity import note_activity
from shortlink.people.actors import Actor
from shortlink.people.key_access import key_actor
from shortlink.schemas.links import LinkView
from shortlink.settings.edge import EdgeSettings
from shortlink.web.edge import came_through_edge
from shortlink.web.events import event_shape
from shortlink.web.hosts import EDGE_HOST_HEADER
from shortlink.web.urls import DestinationPolicy
from shortlink.wiring import (
    addresses,
    api_key_store,
    console_session_secret,
    link_domains,
    link_repository,
    memberships,
    people_settings,
    person_sessions,
    served_workspace_domains,
    settings_of,
    short_domains,
)

MAX_FORM_BYTES = 64 * 1024
MAX_UPLOAD_BYTES = 2 * MAX_FORM_BYTES  # a form with a file: the file (a QR logo: ≤ 64 KiB) and its fields
MAX_FORM_FIELDS = 1000
SIGN_IN = "/console/sign-in"
CONFIRMED = "confirmed"  # the field a confirm step adds (confirm_first)

logger = Logger()
# The console's error pages; through it, once included, the shared helpers read the request.
router = APIGatewayHttpRouter()  # type: ignore[no-untyped-call]  # Powertools leaves it untyped


class SignInNeeded(Exception):
    """No valid session: the browser goes to the sign-in page, told why (`reason`, one of
    shortlink.console.sign_in's SIGN_IN_REASONS) where a session ended under it."""

    def __init__(self, reason: str = "") -> None:
        super().__init__(reason)
        self.reason = reason


class Refused(Exception):
    """A request the console answers with an error page (its status and message)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def now() -> datetime:
    return datetime.now(UTC)


def resolver() -> APIGatewayHttpResolver:
    """The console's resolver (an HTTP API's): the one this module's router is included in."""
    return cast(APIGatewayHttpResolver, router.api_resolver)


def current_event() -> APIGatewayProxyEventV2:
    return router.current_event


def host() -> str:
    """The host this request came in on (API Gateway's domain name): the short links' base
    where the stack names none."""
    return current_event().request_context.domain_name or ""


def session() -> tuple[Session, Actor]:
    """This request's session and who is behind it: a key that is still active, or a person
    still a member of the session's workspace (asked on every request: removed, they are out)."""
    found = read_session(cookie_value(current_event().cookies or []), now(), console_session_secret())
    fresh = writes(current_event().request_context.http.method)
    if found is not None and found.is_person:
        return found, _member_of(found, fresh)
    key = api_key_store().find_by_hash(found.key_hash, fresh=fresh) if found else None
    if found is None or key is None:
        raise SignInNeeded
    if not is_current(found, key, now()):
        raise SignInNeeded("ended")
    actor = acting_key(key, fresh)  # its maker removed or gone: out, as a member would be
    if actor is None:
        raise SignInNeeded("removed")
    return found, actor


def acting_key(key: ApiKey, fresh: bool = False) -> Actor | None:
    """The actor `key` is, capped by its maker's role (shortlink.people.key_access); None if its
    maker is no member any more, or the stack has no people to ask about (as the API has it);
    `fresh` before a write, as the key's own lookup."""
    return key_actor(key, memberships() if people_settings().enabled else None, fresh=fresh)


def _member_of(found: Session, fresh: bool) -> Actor:
    membership = memberships().membership_in(found.workspace_id, found.subject, fresh=fresh)
    if membership is None:
        raise SignInNeeded("removed" if memberships().was_removed(found.workspace_id, found.subject) else "")
    if person_sessions().session_generation(found.subject) != found.generation:
        raise SignInNeeded("ended")
    note_activity(memberships(), membership, now())
    return Actor.of_member(membership)


def requiring(*scopes: str) -> tuple[Session, Actor]:
    """This request's session and actor, who must hold every one of `scopes` (the one check of
    every console page: a person's role gives its scopes, shortlink.people.roles)."""
    current, actor = session()
    for scope in scopes:
        if not actor.allows(scope):
            who = "your role" if actor.kind == "person" else "this API key"
            raise Refused(403, f"{who} lacks the {scope} scope")
    return current, actor


def browser_host() -> str | None:
    """The host the browser sent the request to: Host, but behind the edge (which replaces Host
    with the API's own) the viewer's host it names, or None where it names none (one domain)."""
    event = current_event().raw_event
    headers = event_shape(event).headers(event)
    if came_through_edge(headers, settings_of(EdgeSettings).secret):
        return headers.get(EDGE_HOST_HEADER) or None
    return headers.get("host", "")


def posted_form() -> forms.Form:
    """The form of a state-changing request, refused unless it comes from the console's own
    pages: the browser's Origin (a cross-site form or fetch carries another one)."""
    return posted_upload().fields


def posted_upload() -> Upload:
    """The form of a state-changing request, as posted_form, with the files of a form posted as
    multipart/form-data (one with a file input; at most MAX_UPLOAD_BYTES)."""
    event = current_event()
    if not is_same_origin(event.headers.get("origin"), browser_host(), event.headers.get("sec-fetch-site")):
        raise Refused(403, "this request did not come from the console's own page")
    content_type = event.headers.get("content-type")
    if is_multipart(content_type):
        try:
            body = base64.b64decode(event.body or "") if event.is_base64_encoded else (event.body or "").encode()
        except ValueError:
            raise Refused(400, "the form's body is not the base64 it claims to be") from None
        if len(body) > MAX_UPLOAD_BYTES:
            raise Refused(413, f"the form must be at most {MAX_UPLOAD_BYTES} bytes with its file")
        try:
            return multipart_form(body, content_type or "", MAX_FORM_FIELDS)
        except ValueError as error:
            raise Refused(400, str(error)) from None
    try:
        text = event.decoded_body or ""
    except ValueError:  # base64 of bytes that are not UTF-8 (UnicodeDecodeError is a ValueError)
        raise Refused(400, "the form must be UTF-8 text") from None
    if len(text) > MAX_FORM_BYTES:
        raise Refused(413, f"the form must be at most {MAX_FORM_BYTES} bytes")
    try:
        return Upload(parse_qs(text, keep_blank_values=True, max_num_fields=MAX_FORM_FIELDS))
    except ValueError:  # parse_qs's own limit
        raise Refused(413, f"the form must have at most {MAX_FORM_FIELDS} fields") from None


def posted_by_session(*scopes: str) -> tuple[forms.Form, Session, Actor]:
    """A state-changing request of a signed-in key (with `scopes`), carrying its session's CSRF token."""
    upload, current, key = uploaded_by_session(*scopes)
    return upload.fields, current, key


def uploaded_by_session(*scopes: str) -> tuple[Upload, Session, Actor]:
    """posted_by_session's check of a form that may carry files (multipart/form-data)."""
    upload = posted_upload()
    current, key = requiring(*scopes)
    if not current.accepts_csrf(forms.value(upload.fields, "csrf"), console_session_secret()):
        raise Refused(403, "the form's security token is missing or stale: reload the page and retry")
    return upload, current, key


def shown(template: str, key: Actor, current: Session, status: int = 200, **context: Any) -> Response[Any]:
    """A page of a signed-in key: it knows the key (for what to offer) and the CSRF token."""
    token = current.csrf_token(console_session_secret())
    return page(template, status, key=key, csrf=token, **context)


def confirm_first(
    form: forms.Form, key: Actor, current: Session, question: str, button: str, back: str
) -> Response[Any] | None:
    """The confirm step of a form that removes something (Remove, Revoke, Delete): None once
    the form says it was confirmed, else a page asking `question` whose button posts the same
    form again, confirmed, beside a way `back`. It needs no script, so it works wherever the
    form does."""
    if forms.value(form, CONFIRMED) == "yes":
        return None
    event = current_event()
    action = f"{event.path}?{event.raw_query_string}" if event.raw_query_string else event.path
    return shown("confirm.html", key, current, question=question, action=action, button=button, back=back)


def short_link(link: Link) -> LinkView:
    return link_view(host(), link, addresses(), short_domains())


def view(link: Link) -> dict[str, Any]:
    return short_link(link).model_dump(mode="json")


def destinations() -> DestinationPolicy:
    """What a link of this request may point to (the API's policy, workspaces' domains included)."""
    return destination_policy(host(), addresses(), short_domains(), served_workspace_domains())


def query(name: str) -> str:
    return ((current_event().query_string_parameters or {}).get(name) or "").strip()


def stored_key(code: str, owner: str) -> str:
    """The key of `code` on the domain the page's `?domain=` names (default: the first), as the
    API's routes of one link name it."""
    return requested_key(code, query("domain") or None, link_domains(owner))


def requested(code: str, key: Actor) -> Link:
    return owned_link(stored_key(code, key.owner), key.owner, link_repository())


def page_of(link: Link, **query: str) -> str:
    return link_path(link.code, short_domains().public_name(link.domain), **query)


@router.exception_handler(SignInNeeded)
def sign_in_needed(error: SignInNeeded) -> Response[Any]:
    return see_other(f"{SIGN_IN}?why={error.reason}" if error.reason else SIGN_IN, [ended_session_cookie()])


@router.exception_handler(Refused)
def refused(error: Refused) -> Response[Any]:
    return page("error.html", error.status, message=str(error))


@router.exception_handler(ShortlinkError)
def domain_error(error: ShortlinkError) -> Response[Any]:
    """Every domain error, answered from the console's one table (shortlink.console.error_pages)."""
    answer = error_page(error)
    if not answer.expected:
        logger.error("console request failed: %s", error, exc_info=error)
    shown = page("error.html", answer.status, message=answer.message)
    shown.headers.update(answer.headers)
    return shown
