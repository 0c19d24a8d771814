"""The composition root: the adapters each function uses, built from its settings on first use
and kept per environment, and those settings, the only reading of the environment.

One module per concern (environment, links, domains, limits, redirect, clicks, people, scim,
sign_in, sso, webhooks, audit, edge); each cached factory is made with `@factory` (wiring.factories),
which records it, so `reset()` forgets them all. Nothing here runs at import: a factory's module is imported on
the first use of one of its names (FACTORY_MODULES), and each factory imports its own adapter, so
a function loads only the modules and adapters it uses (the redirect's init neither the console's
nor the webhooks' wiring, and never pynamodb). Functions and tests import the factories from here.

In a deployment of several regions (SHORTLINK_REGIONS), the adapters of writes whose uniqueness
or order matters (links but generated ones, API keys, webhook endpoints, the click budget of
max_clicks) are built for the home region's tables; the redirect's reads, the clicks, the id
counter and the rate-limit windows stay in this region.
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

from shortlink.wiring.factories import forget_all

if TYPE_CHECKING:
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
        lake_exports,
        lake_link_days,
        packing_rules,
        visitor_salt_root,
    )
    from shortlink.wiring.domains import (
        domain_claims,
        domain_claims_here,
        link_domains,
        served_workspace_domains,
        txt_records,
    )
    from shortlink.wiring.edge import (
        edge_counts,
        edge_store,
        link_scan,
        link_stream_changes,
        recent_link_clicks,
    )
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
    from shortlink.wiring.limits import attempt_log, window_counter
    from shortlink.wiring.links import (
        code_generator,
        idempotency_store,
        importing_links,
        link_batch,
        link_lists,
        link_repository,
        qr_styles,
    )
    from shortlink.wiring.people import (
        api_key_store,
        invitation_messages,
        invitations,
        memberships,
        person_access,
        person_sessions,
        pool_keys,
        recovery_codes,
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
    from shortlink.wiring.scim import provisioned_groups, provisioned_users, scim_tokens
    from shortlink.wiring.sign_in import (
        console_session_secret,
        managed_login,
        recovery_code_key,
        sso_signing_keys,
    )
    from shortlink.wiring.sso import identity_providers, provider_documents, sso_setups
    from shortlink.wiring.webhooks import (
        link_owners,
        required_webhook_queue,
        webhook_endpoints,
        webhook_queue,
        webhook_sender,
    )

# Which module of the package makes each name (those TYPE_CHECKING imports above for the type
# checker, each `as` itself: a name the package exports).
FACTORY_MODULES = {
    "audit": ("audit_recorder", "audit_trail"),
    "clicks": (
        "account_changes",
        "account_days",
        "click_counter",
        "click_dispatcher",
        "click_lake",
        "click_publisher",
        "click_reading",
        "click_stats",
        "counted_link_days",
        "lake_exports",
        "lake_link_days",
        "packing_rules",
        "visitor_salt_root",
    ),
    "domains": ("domain_claims", "domain_claims_here", "link_domains", "served_workspace_domains", "txt_records"),
    "edge": ("edge_counts", "edge_store", "link_scan", "link_stream_changes", "recent_link_clicks"),
    "environment": (
        "addresses",
        "forget_settings",
        "function_set",
        "lambda_runtime",
        "people_settings",
        "redirect_metric_settings",
        "regions",
        "resources",
        "settings_of",
        "short_domains",
        "sso_settings",
    ),
    "limits": ("attempt_log", "window_counter"),
    "links": (
        "code_generator",
        "idempotency_store",
        "importing_links",
        "link_batch",
        "link_lists",
        "link_repository",
        "qr_styles",
    ),
    "people": (
        "api_key_store",
        "invitation_messages",
        "invitations",
        "memberships",
        "person_access",
        "person_sessions",
        "pool_keys",
        "recovery_codes",
        "team_stores",
        "user_pool",
        "workspace_names",
    ),
    "redirect": (
        "cached_links",
        "cached_robots",
        "click_budget",
        "domain_settings",
        "forget_cached_links",
        "load_link_reader",
        "redirect_services",
        "request_reading",
    ),
    "scim": ("provisioned_groups", "provisioned_users", "scim_tokens"),
    "sign_in": ("console_session_secret", "managed_login", "recovery_code_key", "sso_signing_keys"),
    "sso": ("identity_providers", "provider_documents", "sso_setups"),
    "webhooks": ("link_owners", "required_webhook_queue", "webhook_endpoints", "webhook_queue", "webhook_sender"),
}
_MODULE_OF = {name: module for module, names in FACTORY_MODULES.items() for name in names}


if not TYPE_CHECKING:  # the type checker reads the imports above (and flags a name none makes)

    def __getattr__(name: str) -> Any:
        """A factory (or settings reader) of this package, its module imported on first use."""
        module = _MODULE_OF.get(name)
        if module is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = getattr(import_module(f"{__name__}.{module}"), name)
        globals()[name] = value  # the next use finds it without this call
        return value


def reset() -> None:
    """Forget every cached adapter and the settings (for tests that change the environment)."""
    from shortlink.wiring.redirect import forget_cached_links

    forget_cached_links()
    forget_all()
