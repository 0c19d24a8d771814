"""What a load balancer takes back from a Lambda target beyond API Gateway's answer: a status
line (`statusDescription`), several Set-Cookie headers where a header name holds one value, and
at most Lambda's 1 MB response, refused whole with a 413 that names the limit rather than cut
short. Shaping an answer itself is its event shape's (shortlink.web.events)."""

from typing import Any

# Lambda's limit on the response a load balancer takes from it: the whole JSON answer, in bytes.
LOAD_BALANCER_RESPONSE_LIMIT = 1_000_000
# A body up to this many characters fits whatever it holds (escaped, at most 6 bytes a character),
# with room to spare for the headers: only a longer one is measured.
LARGE_BODY_CHARS = LOAD_BALANCER_RESPONSE_LIMIT // 8
SET_COOKIE = "set-cookie"
# The field of the status line in a load balancer's answer.
STATUS_LINE = "statusDescription"
# The status lines answered so far (status_description), by code.
STATUS_DESCRIPTIONS: dict[int, str] = {}


def status_description(status: int) -> str:
    """A load balancer's status line: the code and its reason phrase ("302 Found")."""
    known = STATUS_DESCRIPTIONS.get(status)
    if known is None:
        from http import HTTPStatus

        try:
            known = f"{status} {HTTPStatus(status).phrase}"
        except ValueError:  # a code with no registered phrase
            known = str(status)
        STATUS_DESCRIPTIONS[status] = known
    return known


def single_value_cookies(cookies: list[str]) -> dict[str, str]:
    """Several Set-Cookie headers where a header name holds one value: each under its own
    spelling of the name (header names are case-insensitive), as single-value targets must."""
    spellings = {}
    for index, cookie in enumerate(cookies):
        spelling = "".join(
            letter.upper() if index >> position & 1 else letter for position, letter in enumerate(SET_COOKIE)
        )
        spellings[spelling] = cookie
    return spellings


def within_response_limit(shaped: dict[str, Any]) -> dict[str, Any]:
    """`shaped`, or if its JSON is larger than a load balancer takes from Lambda, a 413 naming
    the limit (the route's answer is refused whole, never cut short)."""
    import json

    if len(json.dumps(shaped).encode()) <= LOAD_BALANCER_RESPONSE_LIMIT:
        return shaped
    message = (
        f"the answer is larger than the {LOAD_BALANCER_RESPONSE_LIMIT:,} bytes a load balancer takes from"
        " a function: ask for less (fewer links, a shorter range, a smaller size), or accept gzip"
    )
    body = json.dumps({"error": "response_too_large", "message": message})
    refusal: dict[str, Any] = {
        "statusCode": 413,
        STATUS_LINE: status_description(413),
        "isBase64Encoded": False,
        "body": body,
    }
    if "multiValueHeaders" in shaped:
        refusal["multiValueHeaders"] = {"content-type": ["application/json"]}
    else:
        refusal["headers"] = {"content-type": "application/json"}
    return refusal
