"""Console sessions: an API key exchanged for a signed, expiring cookie, and the CSRF token
that goes with it. Pure code: the secret and the clock are given.

The cookie holds the key's hash (the store's lookup key, not the key: a hash of 190 random bits
gives nothing back), when it was issued and when it ends, and the key's session generation,
signed with HMAC-SHA256. The key itself is never kept, so the console asks the store on each
request: a revoked or expired key ends its sessions at once, and so does Sign out, which moves
the key's generation on (every session of the key ends, in every browser). A session never
outlives its key: it ends by the key's expiry.

A person's session (shortlink.people) holds their subject and the workspace they work in
instead, and their session generation (moved on by Sign out); each request asks for their
membership, so a member removed is out at their next request.
"""

import hashlib
import hmac
from dataclasses import dataclass
from datetime import datetime, timedelta

from shortlink.access.api_keys import ApiKey
from shortlink.access.sealed_values import seal, unseal

SESSION_COOKIE = "console_session"
SESSION_LIFETIME = timedelta(hours=12)
COOKIE_PATH = "/console"
MAX_COOKIE_CHARS = 512
SESSION_PURPOSE = "session"
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost"})


@dataclass(frozen=True)
class Session:
    key_hash: str  # empty in a person's session
    issued_at: int  # Unix seconds
    expires_at: int
    generation: int = 0  # the key's (or person's) session generation when signed in
    subject: str = ""  # a person's session: who (the pool's sub)
    workspace_id: str = ""  # a person's session: the workspace they work in

    @property
    def is_person(self) -> bool:
        return bool(self.subject)

    def csrf_token(self, secret: bytes) -> str:
        """The token each form of this session carries: bound to the session, so a token from
        another session (or none) is refused."""
        holder = f"person:{self.subject}:{self.workspace_id}" if self.is_person else self.key_hash
        message = f"csrf|{holder}|{self.issued_at}".encode()
        return hmac.new(secret, message, hashlib.sha256).hexdigest()

    def accepts_csrf(self, token: str | None, secret: bytes) -> bool:
        return token is not None and hmac.compare_digest(token, self.csrf_token(secret))


def issue_session(
    key_hash: str, now: datetime, secret: bytes, generation: int = 0, key_expires_at: datetime | None = None
) -> tuple[Session, str]:
    """A new session for the key with this hash (of its session `generation`) and its cookie
    value: it ends SESSION_LIFETIME from now, or with the key if that comes first."""
    issued = int(now.timestamp())
    ends = issued + int(SESSION_LIFETIME.total_seconds())
    if key_expires_at is not None:
        ends = min(ends, int(key_expires_at.timestamp()))
    return _signed(Session(key_hash, issued, ends, generation), secret)


def issue_person_session(
    subject: str, workspace_id: str, now: datetime, secret: bytes, generation: int = 0
) -> tuple[Session, str]:
    """A new session of the person `subject` in `workspace_id` and its cookie value."""
    issued = int(now.timestamp())
    session = Session("", issued, issued + int(SESSION_LIFETIME.total_seconds()), generation, subject, workspace_id)
    return _signed(session, secret)


def _signed(session: Session, secret: bytes) -> tuple[Session, str]:
    fields: list[str | int] = [session.key_hash, session.issued_at, session.expires_at, session.generation]
    if session.is_person:
        fields += [session.subject, session.workspace_id]
    return session, seal(fields, SESSION_PURPOSE, secret)


def read_session(cookie: str | None, now: datetime, secret: bytes) -> Session | None:
    """The session a cookie value carries, or None if it is missing, forged, malformed or expired."""
    values = unseal(cookie, SESSION_PURPOSE, secret, MAX_COOKIE_CHARS)
    if values is None:
        return None
    try:
        key_hash, issued_at, expires_at, generation, *person = values
        subject, workspace_id = person or ["", ""]
        session = Session(
            str(key_hash), int(issued_at), int(expires_at), int(generation), str(subject), str(workspace_id)
        )
    except (ValueError, TypeError):  # signed by us, so only a changed secret's format gets here
        return None
    if not session.issued_at <= now.timestamp() < session.expires_at:
        return None
    return session


def is_current(session: Session, key: ApiKey, now: datetime) -> bool:
    """Whether `session` still stands: its key is active and has not signed out since."""
    return key.state(now) == "active" and key.session_generation == session.generation


def is_same_origin(origin: str | None, host: str | None, fetch_site: str | None = None) -> bool:
    """Whether a state-changing request's Origin is the console's own: https on the host it was
    sent to (http only on a loopback host, for `make dev`). Browsers send Origin with every
    POST; a request without one is refused. `host` None: the browser's host is not known (an
    edge of one domain passes no viewer Host on), so the browser's own word decides:
    `Sec-Fetch-Site: same-origin`, which no page of another site can make it send, over https."""
    if not origin:
        return False
    if host is None:
        return fetch_site == "same-origin" and origin.startswith("https://")
    scheme, _, origin_host = origin.partition("://")
    if origin_host != host:
        return False
    return scheme == "https" or (scheme == "http" and host.split(":")[0] in LOOPBACK_HOSTS)


def cookie_value(cookies: list[str], name: str = SESSION_COOKIE) -> str | None:
    """The value of cookie `name` among an HTTP API event's `cookies` ("name=value" each)."""
    for cookie in cookies:
        found, _, value = cookie.strip().partition("=")
        if found == name:
            return value
    return None
