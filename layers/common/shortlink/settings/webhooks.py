"""Webhook deliveries (shortlink.webhooks); their table and queue are Resources."""

from dataclasses import dataclass

from shortlink.settings.environment import EnvironmentModel, flag


@dataclass(frozen=True)
class WebhookSettings(EnvironmentModel):
    # Local stack only: receivers on 127.0.0.1 (the template never sets it).
    allow_loopback: bool = flag("SHORTLINK_WEBHOOKS_ALLOW_LOOPBACK")
