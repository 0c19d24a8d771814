"""make dev's stand-in for the edge changes a request as CloudFront does: Host becomes the API's
own, the secret and the viewer's address replace any the client sent, the viewer's host is named
only where the template's viewer-request function would (several domains)."""

from typing import Any

from tools.developers.devstack.edge import API_HOST, EDGE_ADDRESS, as_the_edge


def environ_seen(names_the_host: bool, **sent: str) -> dict[str, Any]:
    seen: dict[str, Any] = {}

    def app(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        seen.update(environ)
        return []

    viewer = {"HTTP_HOST": "go.localhost:8080", "REMOTE_ADDR": "127.0.0.1", "REMOTE_PORT": "51000"}
    as_the_edge(app, "the-secret", names_the_host)({**viewer, **sent}, None)
    return seen


def test_the_secret_replaces_one_the_client_sent_and_several_domains_get_the_viewers_host():
    seen = environ_seen(True, HTTP_X_SHORTLINK_EDGE_SECRET="forged", HTTP_X_SHORTLINK_HOST="other.example")
    assert (seen["HTTP_X_SHORTLINK_EDGE_SECRET"], seen["HTTP_X_SHORTLINK_HOST"]) == ("the-secret", "go.localhost:8080")


def test_an_edge_of_one_domain_names_no_host():
    seen = environ_seen(False)
    assert seen["HTTP_X_SHORTLINK_EDGE_SECRET"] == "the-secret"
    assert "HTTP_X_SHORTLINK_HOST" not in seen


def test_host_is_the_apis_own_and_the_viewers_address_travels_in_the_edges_headers():
    seen = environ_seen(True, HTTP_CLOUDFRONT_VIEWER_ADDRESS="203.0.113.50:443", HTTP_X_FORWARDED_FOR="198.51.100.7")
    assert seen["HTTP_HOST"] == API_HOST
    assert seen["HTTP_CLOUDFRONT_VIEWER_ADDRESS"] == "127.0.0.1:51000"  # a forged one is replaced
    assert seen["HTTP_X_FORWARDED_FOR"] == "198.51.100.7, 127.0.0.1"  # appended to, as CloudFront does
    assert seen["REMOTE_ADDR"] == EDGE_ADDRESS
