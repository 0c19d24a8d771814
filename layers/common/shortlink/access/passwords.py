"""Link passwords: stored only as a salted PBKDF2-SHA256 hash, checked in constant time.

600,000 iterations (OWASP's figure for PBKDF2-SHA256) make each guess cost about 0.3 s of a full
CPU; unlock attempts are also limited per link and client (shortlink.access.rate_limits).
"""

import base64
import hashlib
import hmac
import re
import secrets

ALGORITHM = "pbkdf2_sha256"
ITERATIONS = 600_000
SALT_BYTES = 16
MIN_LENGTH = 6
MAX_LENGTH = 128
HASH_PART = re.compile(r"[A-Za-z0-9+/]{16,88}")


def hash_password(password: str, iterations: int = ITERATIONS) -> str:
    """`pbkdf2_sha256$<iterations>$<salt>$<hash>`, salt and hash in unpadded base64."""
    salt = secrets.token_bytes(SALT_BYTES)
    digest = hashlib.pbkdf2_hmac("sha256", password.encode(), salt, iterations)
    return f"{ALGORITHM}${iterations}${_b64(salt)}${_b64(digest)}"


def password_matches(password: str, stored: str) -> bool:
    try:
        algorithm, iterations, salt, expected = stored.split("$")
    except ValueError:
        return False
    if algorithm != ALGORITHM:
        return False
    digest = hashlib.pbkdf2_hmac("sha256", password.encode(), _unb64(salt), int(iterations))
    return hmac.compare_digest(digest, _unb64(expected))


def is_password_hash(text: str) -> bool:
    """Whether `text` is a hash as hash_password writes it (an export carries it so)."""
    parts = text.split("$")
    return (
        len(parts) == 4
        and parts[0] == ALGORITHM
        and parts[1].isdigit()
        and 1 <= int(parts[1]) <= 10 * ITERATIONS
        and all(HASH_PART.fullmatch(part) for part in parts[2:])
    )


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.b64decode(text + "=" * (-len(text) % 4))
