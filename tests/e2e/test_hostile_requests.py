"""Hostile requests over real HTTP against the local stack, as raw bytes on a socket: a body
shorter than its Content-Length, request lines and headers that are not UTF-8, invalid
percent-escapes, and a bounded property-based run over every public route. Never a 5xx, never a
hung connection, and no follow taken from a link's budget by a request not answered with its
redirect (issue 28 items 1 and 6, class a)."""

import socket
import time
from collections.abc import Sequence
from urllib.parse import quote_from_bytes

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.e2e.running_stack import RunningStack

BUDGET = 60
# Text a header line may carry on the wire: printable, no line breaks (latin-1 bytes included).
HEADER_BYTES = st.binary(max_size=60).map(lambda raw: bytes(b for b in raw if b >= 0x20 and b != 0x7F))


def exchange(stack: RunningStack, request: bytes, timeout: float = 15) -> tuple[int, bytes, float]:
    """Send `request` as it is; the answer's status, its bytes and the seconds it took."""
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", stack.port), timeout=timeout) as connection:
        connection.sendall(request)
        received = b""
        while chunk := connection.recv(65536):  # the stack closes every connection after its answer
            received += chunk
    status_line = received.split(b"\r\n", 1)[0]
    assert status_line.startswith(b"HTTP/1."), received[:200]
    return int(status_line.split()[1]), received, time.monotonic() - started


def request_bytes(
    method: str, target: bytes, headers: Sequence[tuple[bytes, bytes]] = (), body: bytes | None = None
) -> bytes:
    lines = [method.encode() + b" " + target + b" HTTP/1.1", b"Host: 127.0.0.1", b"Connection: close"]
    lines += [name + b": " + value for name, value in headers]
    if body is not None:
        lines.append(b"Content-Length: " + str(len(body)).encode())
    return b"\r\n".join(lines) + b"\r\n\r\n" + (body or b"")


@pytest.fixture(scope="module")
def followed(stack, budget_link):
    """The link's follows answered with its redirect; afterwards its budget lost exactly those."""
    answered: list[bytes] = []
    yield answered
    left = 0
    while stack.request("GET", f"/{budget_link}").status == 302:
        left += 1
        assert left <= BUDGET
    assert left == BUDGET - len(answered)


@pytest.fixture(scope="module")
def budget_link(stack: RunningStack) -> str:
    auth = {"Authorization": f"Bearer {stack.api_key}", "Content-Type": "application/json"}
    answer = stack.request("POST", "/links", {"url": "https://example.com/hostile", "max_clicks": BUDGET}, auth)
    assert answer.status == 201, answer.body
    return str(answer.json()["code"])


def test_a_body_shorter_than_its_content_length_is_answered_promptly(stack, budget_link):
    head = f"POST /{budget_link} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n"
    request = (head + "Content-Type: application/x-www-form-urlencoded\r\n\r\npassword=x").encode()
    status, answer, seconds = exchange(stack, request)
    assert status == 400, answer
    assert seconds < 10, seconds  # the stack waits a couple of seconds for the rest, not for ever


@pytest.mark.parametrize(
    "target",
    [b"?a=%ff", b"?%ff=1", b"?a=%c3", b"?a=%80", b"?a=%e2%82", b"?a=%ed%a0%80", b"?utm_campaign=%ff", b"?a=\xff\xfe"],
)
def test_a_query_that_is_not_utf8_is_never_a_server_error(stack, budget_link, followed, target):
    for method in ("GET", "HEAD"):
        status, answer, _ = exchange(stack, request_bytes(method, f"/{budget_link}".encode() + target))
        assert status < 500, answer
        if method == "GET" and status == 302:
            followed.append(target)
        if b"\xff" not in target:  # percent-encoded: forwarded as the visitor sent it
            assert status == 302, answer
            location = next(line for line in answer.split(b"\r\n") if line.lower().startswith(b"location:"))
            assert location.lower().endswith(target[1:].lower()), location


QUERY = st.lists(
    st.one_of(
        st.builds(lambda name, value: quote_from_bytes(name) + "=" + quote_from_bytes(value), st.binary(), st.binary()),
        st.lists(st.sampled_from([*"a=&;+%fz09/.~", "%ff", "%c3", "%e2%82", "%%"]), max_size=10).map("".join),
    ).map(str.encode),
    max_size=4,
).map(b"&".join)
ROUTES = ["/{code}", "/", "/robots.txt", "/.well-known/assetlinks.json", "/console", "/console/links"]
# People's routes: sign-in and its challenge, a forgotten password, invitations, members, security,
# the workspace switch and a new workspace.
ROUTES += [
    "/console/sign-in/person",
    "/console/sign-in/challenge",
    "/console/password/forgot",
    "/console/password/reset",
    "/console/invitations/accept",
    "/console/invitations/x",
    "/console/members/invite",
    "/console/security/totp",
    "/console/security/totp/off",
    "/console/security/recovery-codes",
    "/console/workspace",
    "/console/workspaces",
    "/console/sso",
    "/console/workspace/sso",
]
# Any other path: percent-encoded bytes (invalid UTF-8, dots, slashes) under each route's prefix.
RAW_PATHS = st.builds(
    lambda prefix, raw: prefix + quote_from_bytes(raw, safe="/."),
    st.sampled_from(["/", "/console/", "/.well-known/"]),
    st.binary(max_size=20),
)
PATHS = st.sampled_from(ROUTES) | RAW_PATHS


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    path=PATHS,
    method=st.sampled_from(["GET", "HEAD", "POST"]),
    query=QUERY,
    referer=HEADER_BYTES,
    user_agent=HEADER_BYTES,
    language=HEADER_BYTES,
    cookie=HEADER_BYTES,
    body=st.none() | st.binary(max_size=200),
)
def test_every_public_route_over_http_never_answers_5xx(
    stack, budget_link, followed, path, method, query, referer, user_agent, language, cookie, body
):
    target = path.replace("{code}", budget_link).encode() + (b"?" + query if query else b"")
    headers = [(b"Referer", referer), (b"User-Agent", user_agent), (b"Accept-Language", language), (b"Cookie", cookie)]
    if method == "POST":
        headers += [(b"Content-Type", b"application/x-www-form-urlencoded"), (b"Origin", b"http://127.0.0.1")]
    status, answer, _ = exchange(stack, request_bytes(method, target, headers, body if method == "POST" else None))
    assert status < 500, answer[:500]
    if path == "/{code}" and method == "GET" and status == 302:
        followed.append(query)


# Access tokens that are none: no header, alg none, a key's id where the kid goes, broken base64,
# a huge one, JSON that is no object, an API key spelled as a JWT.
FORGED_TOKENS = [
    b"eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4IiwidG9rZW5fdXNlIjoiYWNjZXNzIn0.",
    b"eyJhbGciOiJSUzI1NiIsImtpZCI6ImR1bW15In0.e30.AAAA",
    b"eyJ%%%.e30.AAAA",
    b"eyJ" + b"A" * 9000 + b".e30.AAAA",
    b"eyJbXQ.W10.AAAA",
    b"eyJzbF9hYmMi.e30.e30",
    b"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl",
]


@pytest.mark.parametrize("token", FORGED_TOKENS)
@pytest.mark.parametrize("target", [b"/people/me", b"/links", b"/keys", b"/stats"])
def test_a_forged_access_token_is_a_401_on_every_route_people_call(stack, token, target):
    headers = [(b"Authorization", b"Bearer " + token), (b"X-Shortlink-Workspace", b"\xff../../x")]
    status, answer, _ = exchange(stack, request_bytes("GET", target, headers))
    assert status == 401, answer[:500]


@pytest.mark.parametrize(
    "form",
    [
        b"email=" + b"a" * 5000 + b"@example.com&password=x",
        b"email=%ff%fe@example.com&password=%ff",
        b"email=&password=",
        b"password=only",
        b"email=a%40example.com&password=" + b"p" * 5000,
        b"email=a%40example.com&email=b%40example.com&password=x",
    ],
)
def test_a_hostile_sign_in_form_is_a_4xx_naming_nothing(stack, form):
    headers = [(b"Content-Type", b"application/x-www-form-urlencoded"), (b"Origin", b"http://127.0.0.1")]
    status, answer, _ = exchange(stack, request_bytes("POST", b"/console/sign-in/person", headers, form))
    assert 400 <= status < 500, answer[:500]
    assert b"Traceback" not in answer


@pytest.mark.parametrize("token", [b"x", b"%ff%fe", b"A" * 300, b"..%2f..%2fkeys", b"%00"])
def test_an_invitation_link_that_is_none_is_a_404(stack, token):
    status, answer, _ = exchange(stack, request_bytes("GET", b"/console/invitations/" + token))
    assert status == 404, answer[:500]


def test_a_signed_in_person_naming_huge_or_foreign_ids_gets_a_4xx(stack):
    from tests.e2e.test_people import Visitor, access_token, owner_credentials

    email, password = owner_credentials(stack)
    token = access_token(stack, email, password)
    for workspace in (b"w" * 5000, b"another-workspace", b"\xff\xfe"):
        headers = [(b"Authorization", b"Bearer " + token.encode()), (b"X-Shortlink-Workspace", workspace)]
        status, answer, _ = exchange(stack, request_bytes("GET", b"/links", headers))
        assert status == 403, answer[:500]
    owner = Visitor(stack)
    assert owner.post("/console/sign-in/person", {"email": email, "password": password}).status == 303
    csrf = owner.csrf("/console/members")
    assert owner.post(f"/console/members/{'s' * 3000}/remove", {"csrf": csrf}).status == 404
    assert owner.post(f"/console/members/{'s' * 3000}/role", {"csrf": csrf, "role": "viewer"}).status == 404
    assert owner.post("/console/members/x/role", {"csrf": csrf, "role": "emperor"}).status == 422
    assert owner.post("/console/workspace", {"csrf": csrf, "workspace_id": "w" * 5000}).status == 403
    invited = owner.post(
        "/console/members/invite", {"csrf": csrf, "email": "x" * 300 + "@example.com", "role": "viewer"}
    )
    assert invited.status == 422
    assert b"email:" in invited.body


@pytest.mark.parametrize(
    ("path", "form", "cookie"),
    [
        # Addresses refused before any attempt is counted (the stack is shared: its limit too)
        (b"/console/sign-in/passkey", b"email=" + b"a" * 5000 + b"@example.com", b""),
        (b"/console/sign-in/passkey", b"email=%ff%fe@example.com", b""),
        (b"/console/sign-in/passkey", b"email=", b""),
        (b"/console/sign-in/passkey/finish", b"credential=" + b"%7B" * 9000, b""),
        (b"/console/sign-in/passkey/finish", b"credential=%ff%fe", b"console_challenge=forged"),
        (b"/console/sign-in/passkey/finish", b"credential=" + b"x" * 20000, b"console_challenge=" + b"A" * 5000),
    ],
)
def test_a_hostile_passkey_sign_in_is_a_4xx_naming_nothing(stack, path, form, cookie):
    headers = [(b"Content-Type", b"application/x-www-form-urlencoded"), (b"Origin", b"http://127.0.0.1")]
    status, answer, _ = exchange(
        stack, request_bytes("POST", path, headers + ([(b"Cookie", cookie)] if cookie else []), form)
    )
    assert 400 <= status < 500, answer[:500]
    assert b"Traceback" not in answer
