"""What a destination URL must look like before we agree to redirect to it."""

from urllib.parse import urlsplit

from shortlink.errors import InvalidUrl

MAX_URL_LENGTH = 2048
ALLOWED_SCHEMES = ("http", "https")


def validate_destination(url: str) -> str:
    """Return `url` if it is an absolute http(s) URL we may redirect to, else raise InvalidUrl."""
    if len(url) > MAX_URL_LENGTH:
        raise InvalidUrl(f"url is longer than {MAX_URL_LENGTH} characters")
    if any(ch.isspace() or ord(ch) < 0x20 or ord(ch) == 0x7F for ch in url):
        raise InvalidUrl("url must not contain whitespace or control characters")
    try:
        parts = urlsplit(url)
        hostname = parts.hostname
        parts.port  # noqa: B018 - raises ValueError on a malformed port
    except ValueError as error:
        raise InvalidUrl(f"url is malformed: {error}") from None
    if parts.scheme.lower() not in ALLOWED_SCHEMES:
        raise InvalidUrl("url must be an absolute http or https URL")
    if not hostname:
        raise InvalidUrl("url must name a host")
    if parts.username is not None or parts.password is not None:
        raise InvalidUrl("url must not embed credentials (user:password@)")
    return url
