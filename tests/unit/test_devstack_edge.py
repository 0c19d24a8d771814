"""make dev's stand-in for the edge adds what CloudFront adds, no more: the viewer's host only
where the template's viewer-request function would (several domains)."""

from typing import Any

from tools.devstack.__main__ import as_the_edge


def environ_seen(names_the_host: bool, **sent: str) -> dict[str, Any]:
    seen: dict[str, Any] = {}

    def app(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        seen.update(environ)
        return []

    as_the_edge(app, "the-secret", names_the_host)({"HTTP_HOST": "go.localhost:8080", **sent}, None)
    return seen


def test_the_secret_replaces_one_the_client_sent_and_several_domains_get_the_viewers_host():
    seen = environ_seen(True, HTTP_X_SHORTLINK_EDGE_SECRET="forged", HTTP_X_SHORTLINK_HOST="other.example")
    assert (seen["HTTP_X_SHORTLINK_EDGE_SECRET"], seen["HTTP_X_SHORTLINK_HOST"]) == ("the-secret", "go.localhost:8080")


def test_an_edge_of_one_domain_names_no_host():
    seen = environ_seen(False)
    assert seen["HTTP_X_SHORTLINK_EDGE_SECRET"] == "the-secret"
    assert "HTTP_X_SHORTLINK_HOST" not in seen
