"""The edge (CloudFront) in front of the API, if any."""

from dataclasses import dataclass

from shortlink.errors import ConfigurationError
from shortlink.settings.environment import EnvironmentModel, text

# A guessable edge secret would let anyone forge CloudFront's viewer headers.
MIN_EDGE_SECRET_LENGTH = 32


@dataclass(frozen=True)
class EdgeSettings(EnvironmentModel):
    # The secret CloudFront adds to each request it sends to the API (from SSM at deploy; the
    # local stack's own locally): CloudFront's viewer headers are believed only on requests
    # that carry it (shortlink.web.addresses, shortlink.redirect.visitors). Empty: no edge, and
    # they are never believed.
    secret: str = text("EDGE_SECRET", secret=True)

    def __post_init__(self) -> None:
        if self.secret and len(self.secret) < MIN_EDGE_SECRET_LENGTH:
            raise ConfigurationError(f"EDGE_SECRET must be at least {MIN_EDGE_SECRET_LENGTH} characters")

    @property
    def trust_edge_headers(self) -> bool:
        """An edge is in front and proves, with its secret, which requests came through it."""
        return bool(self.secret)
