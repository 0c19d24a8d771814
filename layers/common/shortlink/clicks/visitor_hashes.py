"""Who a visitor is, for counting unique visitors, without knowing who they are.

The hash of a visitor's address and User-Agent under a salt derived from a secret root and the
day: the same visitor gets the same hash all day and an unrelated one the next day, and without
the root nobody can test an address against a hash. Neither the address nor the User-Agent is
kept anywhere.
"""

import hashlib
import hmac
from datetime import date

from shortlink.secrets import read_secret


def daily_salt(root: bytes, day: date) -> bytes:
    return hmac.new(root, f"visitor-salt:{day.isoformat()}".encode(), hashlib.sha256).digest()


def visitor_hash(salt: bytes, address: str, user_agent: str) -> str:
    return hmac.new(salt, f"{address}\n{user_agent}".encode(), hashlib.sha256).hexdigest()[:32]


def load_salt_root(inline: str, parameter: str) -> bytes:
    """The secret root (`inline`, else SSM `parameter`'s): read on the first click (after a
    response), never at import."""
    return read_secret(
        inline,
        parameter,
        ("VISITOR_SALT", "VISITOR_SALT_PARAMETER"),
        "the visitor salt",
    )
