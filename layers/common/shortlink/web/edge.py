"""Whether a request provably came through the stack's edge (CloudFront), which adds its secret
to every request it sends to the API (template.yaml, EdgeDistribution): only then are the
headers it sets believed. Light on imports: the redirect's request reads it (shortlink.redirect.request)."""

import hmac
from collections.abc import Mapping

# The origin header CloudFront adds; its value is the edge secret (Settings.edge_secret).
EDGE_SECRET_HEADER = "x-shortlink-edge-secret"  # noqa: S105 - the header's name, not a secret


def came_through_edge(headers: Mapping[str, str], edge_secret: str) -> bool:
    """Whether `headers` (lower-case names) carry the stack's `edge_secret`; never without an
    edge (an empty secret)."""
    if not edge_secret:
        return False
    given = headers.get(EDGE_SECRET_HEADER, "").encode()
    return hmac.compare_digest(given, edge_secret.encode())
