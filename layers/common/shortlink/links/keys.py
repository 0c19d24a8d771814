"""Which strings could be a link's code or key: checked before any lookup, so nothing else is
ever looked up (and the redirect loads no more than this to decide it)."""

import re

from shortlink.domains.model import HOST_PATTERN, split_key

# Any code we could have issued: generated base62 codes, private codes and custom slugs.
CODE_PATTERN = re.compile(r"[A-Za-z0-9_-]{1,64}")


def is_possible_code(code: str) -> bool:
    """Whether we could ever have issued `code`; other codes are never looked up."""
    return CODE_PATTERN.fullmatch(code) is not None


def is_possible_key(key: str) -> bool:
    """Whether we could ever have stored a link under `key`: a code, or a domain's host and a
    code (shortlink.domains)."""
    domain, code = split_key(key)
    return is_possible_code(code) and (not domain or HOST_PATTERN.fullmatch(domain) is not None)
