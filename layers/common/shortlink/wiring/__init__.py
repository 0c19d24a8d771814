"""The composition root: the adapters each function uses, built from its settings on first use
and kept per environment, and those settings, the only reading of the environment.

One module per concern (environment, links, limits, redirect, clicks, people, sign_in,
webhooks, audit, edge); each cached factory is made with `@factory` (wiring.factories), which records
it, so `reset()` forgets them all. Nothing here runs at import but those records, and each
factory imports its own adapter: a function loads only the adapters it uses (the redirect never
loads pynamodb). Functions and tests import the factories from here.

In a deployment of several regions (SHORTLINK_REGIONS), the adapters of writes whose uniqueness
or order matters (links but generated ones, API keys, webhook endpoints, the click budget of
max_clicks) are built for the home region's tables; the redirect's reads, the clicks, the id
counter and the rate-limit windows stay in this region.
"""

from shortlink.wiring.audit import audit_recorder, audit_trail
from shortlink.wiring.clicks import (
    account_changes,
    account_days,
    click_counter,
    click_dispatcher,
    click_lake,
    click_publisher,
    click_reading,
    click_stats,
    counted_link_days,
    lake_link_days,
    packing_rules,
    visitor_salt_root,
)
from shortlink.wiring.edge import edge_counts, edge_store, link_scan, link_stream_changes, recent_link_clicks
from shortlink.wiring.environment import (
    addresses,
    forget_settings,
    function_set,
    lambda_runtime,
    people_settings,
    redirect_metric_settings,
    regions,
    resources,
    settings_of,
    short_domains,
    sso_settings,
)
from shortlink.wiring.factories import forget_all
from shortlink.wiring.limits import attempt_log, window_counter
from shortlink.wiring.links import code_generator, idempotency_store, importing_links, link_repository
from shortlink.wiring.people import (
    api_key_store,
    invitation_messages,
    invitations,
    memberships,
    person_access,
    person_sessions,
    pool_keys,
    team_stores,
    user_pool,
    workspace_names,
)
from shortlink.wiring.redirect import (
    cached_links,
    cached_robots,
    click_budget,
    domain_settings,
    forget_cached_links,
    load_link_reader,
    redirect_services,
    request_reading,
)
from shortlink.wiring.sign_in import console_session_secret, managed_login, sso_signing_keys
from shortlink.wiring.webhooks import (
    link_owners,
    required_webhook_queue,
    webhook_endpoints,
    webhook_queue,
    webhook_sender,
)


def reset() -> None:
    """Forget every cached adapter and the settings (for tests that change the environment)."""
    forget_cached_links()
    forget_all()


__all__ = [
    "account_changes",
    "account_days",
    "addresses",
    "api_key_store",
    "attempt_log",
    "audit_recorder",
    "audit_trail",
    "cached_links",
    "cached_robots",
    "click_budget",
    "click_counter",
    "click_dispatcher",
    "click_lake",
    "click_publisher",
    "click_reading",
    "click_stats",
    "code_generator",
    "console_session_secret",
    "counted_link_days",
    "domain_settings",
    "edge_counts",
    "edge_store",
    "forget_cached_links",
    "forget_settings",
    "function_set",
    "idempotency_store",
    "importing_links",
    "invitation_messages",
    "invitations",
    "lake_link_days",
    "lambda_runtime",
    "link_owners",
    "link_repository",
    "link_scan",
    "link_stream_changes",
    "load_link_reader",
    "managed_login",
    "memberships",
    "packing_rules",
    "people_settings",
    "person_access",
    "person_sessions",
    "pool_keys",
    "recent_link_clicks",
    "redirect_metric_settings",
    "redirect_services",
    "regions",
    "request_reading",
    "required_webhook_queue",
    "reset",
    "resources",
    "settings_of",
    "short_domains",
    "sso_settings",
    "sso_signing_keys",
    "team_stores",
    "user_pool",
    "visitor_salt_root",
    "webhook_endpoints",
    "webhook_queue",
    "webhook_sender",
    "window_counter",
    "workspace_names",
]
