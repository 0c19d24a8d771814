"""The link commands of a request, for either door: the composition root's stores and queues,
the caller's allowance, and what the door gives (the request's origin, what its links may point
to, how it shows a link). The API's functions take theirs from `link_commands(request)`."""

from collections.abc import Callable
from datetime import UTC, datetime
from functools import partial

from shortlink.access.rate_limits import CreateAllowance
from shortlink.api.audit import request_origin
from shortlink.api.link_presentation import destination_policy, link_showing
from shortlink.api.requests import ApiRequest
from shortlink.audit.recording import AuditRecorder, RequestOrigin
from shortlink.commands.bulk import LinkBatch
from shortlink.commands.links import LinkCommands, LinkPresenter
from shortlink.settings.rate_limits import RateLimitSettings
from shortlink.web.urls import DestinationPolicy
from shortlink.wiring import (
    addresses,
    audit_recorder,
    code_generator,
    link_domains,
    link_repository,
    served_workspace_domains,
    settings_of,
    short_domains,
    webhook_queue,
    window_counter,
)


def now() -> datetime:
    return datetime.now(UTC)


def commands_of(
    origin: RequestOrigin,
    policy: Callable[[], DestinationPolicy],
    present: LinkPresenter,
    batch: LinkBatch | None = None,
) -> LinkCommands:
    """The commands of a request from `origin`, in its workspace (whose keys share the allowance);
    with `batch`, staged in it and its audit entries with them (a bulk change)."""

    def allowance() -> CreateAllowance:
        limit = settings_of(RateLimitSettings).creates_per_minute
        return CreateAllowance(origin.workspace, limit, now(), window_counter())

    return LinkCommands(
        origin=origin,
        clock=now,
        links=link_repository() if batch is None else batch,
        codes=code_generator,
        policy=policy,
        allowance=allowance,
        present=present,
        recorder=audit_recorder() if batch is None else AuditRecorder(batch.entries(), webhook_queue()),
        events=webhook_queue(),
        domains=partial(link_domains, origin.workspace),
    )


def link_commands(request: ApiRequest, batch: LinkBatch | None = None) -> LinkCommands:
    """The commands of an API request, in its caller's account: what they need of the request
    read here, once (its origin, its host), so that nothing below reads the request again."""
    host, shown_on, domains = request.host, addresses(), short_domains()
    # Made on first use (a delete needs none); the workspaces' domains read on a destination's host.
    policy = partial(destination_policy, host, shown_on, domains, served_workspace_domains())
    return commands_of(request_origin(request, now()), policy, link_showing(host, shown_on, domains).shown, batch)
