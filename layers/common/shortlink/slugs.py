"""Custom slugs: what a link's owner may choose as its code.

A slug has the shape of any code (1-64 characters of `[A-Za-z0-9_-]`), is not a path the service
itself answers, and is unique among slugs after folding case and look-alike characters (0/O,
1/l/I), so that `Promo`, `promo` and `pr0mo` cannot point to three different places.
"""

from shortlink.errors import InvalidLinkOption
from shortlink.links import is_possible_code

# Paths a visitor or a client could mean as something other than a short link. Every first path
# segment of the API's own routes is here too (a test checks it against template.yaml).
RESERVED_SLUGS = frozenset(
    {
        "links",
        "api",
        "admin",
        "login",
        "logout",
        "static",
        "assets",
        "docs",
        "openapi.json",
        "health",
        "robots.txt",
        "favicon.ico",
        ".well-known",
    }
)
# Characters a reader easily takes for one another, mapped to one representative.
LOOK_ALIKES = str.maketrans({"0": "o", "1": "l", "i": "l"})


def slug_key(slug: str) -> str:
    """The form two slugs share when a reader could take one for the other."""
    return slug.lower().translate(LOOK_ALIKES)


RESERVED_KEYS = frozenset(slug_key(reserved) for reserved in RESERVED_SLUGS)


def validate_slug(slug: str) -> str:
    if not is_possible_code(slug):
        raise InvalidLinkOption("slug", "slug must be 1-64 characters of letters, digits, '_' and '-'")
    if slug_key(slug) in RESERVED_KEYS:
        raise InvalidLinkOption("slug", f"slug {slug!r} is reserved")
    return slug
