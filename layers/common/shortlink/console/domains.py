"""The workspace's own short domains (Settings → Domains), for its owners and admins (`admin`):
add one, publish its TXT record, verify it, remove it; through the domain commands, as the API's
/domains routes do, each change in the audit log."""

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from shortlink.access.api_keys import ADMIN
from shortlink.api.domain_commands import domain_commands_of
from shortlink.api.errors import error_answer
from shortlink.commands.domains import DomainCommands
from shortlink.console import audit, forms
from shortlink.console.pages import see_other
from shortlink.console.plumbing import confirm_first, host, posted_by_session, requiring, shown
from shortlink.console.sessions import Session
from shortlink.domains.errors import DnsUnavailable, DomainInUse, DomainNotFound, DomainNotVerified, DomainTaken
from shortlink.errors import InvalidLinkOption
from shortlink.people.actors import Actor
from shortlink.wiring import short_domains, txt_records

PATH = "/console/workspace/domains"
# What the page answers with its own words (the rest: the console's error pages).
REFUSALS = (InvalidLinkOption, DomainTaken, DomainNotFound, DomainNotVerified, DomainInUse, DnsUnavailable)

router = APIGatewayHttpRouter()  # type: ignore[no-untyped-call]  # Powertools leaves it untyped


def domain_commands(actor: Actor) -> DomainCommands:
    """The domain commands of this console request by `actor`, in their workspace."""
    return domain_commands_of(audit.origin(actor), host(), datetime.now(UTC))


def domains_page(
    actor: Actor, current: Session, status: int = 200, problem: str = "", typed: str = ""
) -> Response[Any]:
    """The workspace's domains with their records; `problem`: why the last change was refused."""
    domains = domain_commands(actor).domains()
    stack = short_domains().names
    return shown("domains.html", actor, current, status, domains=domains, stack=stack, problem=problem, typed=typed)


def changed(
    actor: Actor, current: Session, change: Callable[[DomainCommands], object], typed: str = ""
) -> Response[Any]:
    """`change` made by `actor`, then back to the page; refused, the page again saying why
    (with the name as `typed`, to correct)."""
    try:
        change(domain_commands(actor))
    except REFUSALS as error:
        answer = error_answer(error)
        assert answer is not None  # each of REFUSALS is in the API's table
        return domains_page(actor, current, answer.status, problem=answer.message, typed=typed)
    return see_other(PATH)


@router.get(PATH)
def workspace_domains() -> Response[Any]:
    current, actor = requiring(ADMIN)
    return domains_page(actor, current)


@router.post(PATH)
def add_domain() -> Response[Any]:
    form, current, actor = posted_by_session(ADMIN)
    typed = forms.value(form, "domain")
    return changed(actor, current, lambda commands: commands.add(typed), typed)


@router.post(f"{PATH}/<domain>/verify")
def verify_domain(domain: str) -> Response[Any]:
    _, current, actor = posted_by_session(ADMIN)
    return changed(actor, current, lambda commands: commands.verify(domain, txt_records()))


@router.post(f"{PATH}/<domain>/remove")
def remove_domain(domain: str) -> Response[Any]:
    form, current, actor = posted_by_session(ADMIN)
    question = f"Remove {domain} from this workspace? Another workspace may then claim it."
    if (asking := confirm_first(form, actor, current, question, "Remove", PATH)) is not None:
        return asking
    return changed(actor, current, lambda commands: commands.remove(domain))
