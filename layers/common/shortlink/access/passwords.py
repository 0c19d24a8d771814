"""Link passwords: stored only as a salted PBKDF2-SHA256 hash, checked in constant time.

600,000 iterations (OWASP's figure for PBKDF2-SHA256) make each guess cost about 0.3 s of a full
CPU; unlock attempts are also limited per link and client (shortlink.access.rate_limits).
A hash restored by an import may use more, up to MAX_ITERATIONS: the cost of one unlock is the
visitor's wait and the redirect function's time (about 1 s per 600,000 at 512 MB; its timeout is
10 s), so a file cannot make a link that takes seconds to unlock.
"""

import base64
import binascii
import hashlib
import hmac
import re
import secrets

from shortlink.numbers import NotAWholeNumber, whole_number

ALGORITHM = "pbkdf2_sha256"
ITERATIONS = 600_000
SALT_BYTES = 16
MIN_LENGTH = 6
MAX_LENGTH = 128
MAX_ITERATIONS = 2 * ITERATIONS
HASH_PART = re.compile(r"[A-Za-z0-9+/]{2,88}")
MIN_SALT_BYTES = 8
DIGEST_BYTES = 32  # pbkdf2_hmac's default length for SHA-256


def hash_password(password: str, iterations: int = ITERATIONS) -> str:
    """`pbkdf2_sha256$<iterations>$<salt>$<hash>`, salt and hash in unpadded base64."""
    salt = secrets.token_bytes(SALT_BYTES)
    digest = hashlib.pbkdf2_hmac("sha256", password.encode(), salt, iterations)
    return f"{ALGORITHM}${iterations}${_b64(salt)}${_b64(digest)}"


def password_matches(password: str, stored: str) -> bool:
    if password_hash_problem(stored) is not None:  # never hashed here, nor importable
        return False
    _, iterations, salt, expected = stored.split("$")
    digest = hashlib.pbkdf2_hmac("sha256", password.encode(), _unb64(salt) or b"", int(iterations))
    return hmac.compare_digest(digest, _unb64(expected) or b"")


def password_hash_problem(text: str) -> str | None:
    """Why `text` is not a hash as hash_password writes it (an export carries it so), or None:
    its iterations at most MAX_ITERATIONS, its salt and digest in canonical unpadded base64."""
    parts = text.split("$")
    if len(parts) != 4 or parts[0] != ALGORITHM:
        return f"must be a password hash as an export writes it ({ALGORITHM}$<iterations>$<salt>$<hash>)"
    try:
        whole_number(parts[1], "iterations", minimum=1, maximum=MAX_ITERATIONS)
    except NotAWholeNumber as error:
        return str(error)
    salt, digest = _unb64(parts[2]), _unb64(parts[3])
    if salt is None or len(salt) < MIN_SALT_BYTES:
        return f"its salt must be at least {MIN_SALT_BYTES} bytes in unpadded base64"
    if digest is None or len(digest) != DIGEST_BYTES:
        return f"its hash must be {DIGEST_BYTES} bytes in unpadded base64"
    return None


def is_password_hash(text: str) -> bool:
    """Whether `text` is a hash as hash_password writes it (password_hash_problem says why not)."""
    return password_hash_problem(text) is None


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode().rstrip("=")


def _unb64(text: str) -> bytes | None:
    """The bytes of canonical unpadded base64 (as _b64 writes them), else None."""
    if not HASH_PART.fullmatch(text):
        return None
    try:
        raw = base64.b64decode(text + "=" * (-len(text) % 4))
    except binascii.Error:  # 4n+1 characters
        return None
    return raw if _b64(raw) == text else None
