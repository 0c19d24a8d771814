"""The console's sessions (shortlink.console.sessions)."""

from dataclasses import dataclass

from shortlink.settings.environment import EnvironmentModel, text


@dataclass(frozen=True)
class ConsoleSettings(EnvironmentModel):
    # The key that signs sessions: SSM in AWS, CONSOLE_SESSION_SECRET in the local stack.
    session_secret: str = text("CONSOLE_SESSION_SECRET", secret=True)
    session_secret_parameter: str = text("CONSOLE_SESSION_SECRET_PARAMETER")
