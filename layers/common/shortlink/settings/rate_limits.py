"""How often one caller may do what is worth limiting (shortlink.access.rate_limits)."""

from dataclasses import dataclass

from shortlink.settings.environment import EnvironmentModel, integer


@dataclass(frozen=True)
class RateLimitSettings(EnvironmentModel):
    # Links one API key may create per minute (0: no limit).
    creates_per_minute: int = integer("CREATE_RATE_LIMIT_PER_MINUTE", 60, 0, 1_000_000)
    # Password attempts per link and client address per UNLOCK_WINDOW_SECONDS.
    unlock_attempts_per_window: int = integer("UNLOCK_ATTEMPTS_PER_WINDOW", 10, 1, 1000)
    # Console sign-ins per client address per SIGN_IN_WINDOW_SECONDS.
    sign_in_attempts_per_window: int = integer("SIGN_IN_ATTEMPTS_PER_WINDOW", 10, 1, 1000)
