"""How the redirect records clicks and who its visitors are (shortlink.clicks)."""

from dataclasses import dataclass

from shortlink.settings.environment import EnvironmentModel, integer, text


@dataclass(frozen=True)
class ClickSettings(EnvironmentModel):
    # Clicks are sent at once after a quiet window, else held and packed, one message per window
    # or per this many clicks (shortlink.clicks.packing).
    pack_window_ms: int = integer("CLICK_PACK_WINDOW_MS", 1000, 0, 60_000)
    pack_max_clicks: int = integer("CLICK_PACK_MAX_CLICKS", 1000, 1, 1000)
    # A visitor's follows of one link within this many seconds of the last are flagged as
    # repeats (shortlink.clicks.repeats); 0 flags none.
    repeat_window_seconds: int = integer("REPEAT_CLICK_WINDOW_SECONDS", 10, 0, 3600)
    # The root of the daily visitor-hash salt: SSM in AWS, VISITOR_SALT in the local stack.
    visitor_salt: str = text("VISITOR_SALT", secret=True)
    visitor_salt_parameter: str = text("VISITOR_SALT_PARAMETER")
