"""Custom slugs: what a link's owner may choose as its code.

A slug has the shape of any code (1-64 characters of `[A-Za-z0-9_-]`), is not a path the service
itself answers, and is unique among slugs and generated codes after folding case and look-alike
characters (0/O, 1/l/I), so that `Promo`, `promo` and `pr0mo` cannot point to three different
places, nor `kgsuc4v` beside the generated `KgsUc4V`.
"""

from itertools import product

from shortlink.codes import base62
from shortlink.errors import InvalidLinkOption
from shortlink.links.keys import is_possible_code

# Paths a visitor or a client could mean as something other than a short link. Every first path
# segment of the API's own routes is here too (a test checks it against template.yaml).
RESERVED_SLUGS = frozenset(
    {
        "links",
        "stats",
        "keys",
        "webhooks",
        "audit",
        "clicks",  # the API's raw exports of the click lake (/clicks/exports)
        "people",  # the API's routes of people (/people/me)
        "members",  # the team's routes (/members, /invitations, /workspace, /workspaces)
        "invitations",
        "workspace",
        "workspaces",
        "domains",  # a workspace's own domains (/domains)
        "scim",  # SCIM provisioning (/scim/v2), opened by a workspace's SCIM token
        "api",
        "admin",
        "login",
        "logout",
        "static",
        "assets",
        "docs",
        "console",
        "unlock",  # a password link's form posts to /unlock/{code} (shortlink.redirect.routes)
        "export",  # GET /links/export would hide GET /links/{code} of a link so named
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
# The base62 characters that read as each folded one: {o, O, 0}, {l, L, 1, i, I}, {a, A}, ...
READ_ALIKE: dict[str, str] = {}
for _character in base62.ALPHABET:
    READ_ALIKE[slug_key(_character)] = READ_ALIKE.get(slug_key(_character), "") + _character
# Look-alike spellings checked against generated codes (100 to a BatchGetItem); a slug with more
# (`illicit` has 12,500 at length 7) is refused rather than read for seconds.
MAX_LOOK_ALIKES = 2000


def validate_slug(slug: str) -> str:
    if not is_possible_code(slug):
        raise InvalidLinkOption("slug", "slug must be 1-64 characters of letters, digits, '_' and '-'")
    if slug_key(slug) in RESERVED_KEYS:
        raise InvalidLinkOption("slug", f"slug {slug!r} is reserved")
    return slug


def generated_look_alikes(slug: str, code_length: int) -> list[str]:
    """The spellings of `slug` that a generated code could have (`code_length` base62 characters)
    and that read the same as it, itself included; raise InvalidLinkOption if too many to check."""
    key = slug_key(slug)
    if len(slug) != code_length or any(character not in READ_ALIKE for character in key):
        return []
    count = 1
    for character in key:
        count *= len(READ_ALIKE[character])
    if count > MAX_LOOK_ALIKES:
        raise InvalidLinkOption(
            "slug",
            f"slug {slug!r} reads like {count} possible generated codes, too many to check: "
            f"add '-' or '_', or make it longer or shorter than {code_length} characters",
        )
    return ["".join(spelling) for spelling in product(*(READ_ALIKE[character] for character in key))]
