"""Where the redirect's metrics go (CloudWatch EMF, shortlink.clicks.metrics): their namespace
and service dimension."""

from dataclasses import dataclass

from shortlink.errors import ConfigurationError
from shortlink.settings.environment import EnvironmentModel, text


@dataclass(frozen=True)
class RedirectMetricSettings(EnvironmentModel):
    namespace: str = text("POWERTOOLS_METRICS_NAMESPACE", "Shortlink")
    # Told to ingest, which emits the counts the redirect's clicks carry under the redirect's name.
    redirect_service: str = text("REDIRECT_SERVICE_NAME")
    own_service: str = text("POWERTOOLS_SERVICE_NAME")

    @property
    def service(self) -> str:
        """The redirect's service name: REDIRECT_SERVICE_NAME where another function emits its
        counts (ingest), else the service of the function itself (the redirect)."""
        name = self.redirect_service or self.own_service
        if not name:
            raise ConfigurationError("neither REDIRECT_SERVICE_NAME nor POWERTOOLS_SERVICE_NAME is set")
        return name
