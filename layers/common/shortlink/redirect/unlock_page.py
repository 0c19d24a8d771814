"""The page a visitor unlocks a password-protected link with: a plain HTML form that posts the
password to the link's unlock address, `/unlock/<code>` on the same host (shortlink.redirect.routes'
UNLOCK: a path the edge sends to one origin, POST allowed, even when its redirects fail over);
no script, nothing loaded from elsewhere."""

import html
from urllib.parse import quote

from shortlink.redirect.responses import NOINDEX

# No framing (clickjacking), no referrer to the destination, nothing cached, nothing else
# loaded, and never indexed: a form is nothing a search engine should list, crawlable or not.
HEADERS = {
    "Content-Type": "text/html; charset=utf-8",
    "Cache-Control": "no-store",
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    **NOINDEX,
}

FORM = """<!doctype html><html lang=en><meta charset=utf-8>
<meta name=viewport content="width=device-width,initial-scale=1">
<title>Password required</title>
<style>body{{font-family:system-ui,sans-serif;max-width:24rem;margin:4rem auto;padding:0 1rem}}
input,button{{font-size:1rem;padding:.5rem;margin:.25rem 0;width:100%;box-sizing:border-box}}
.error{{color:#b00020}}</style>
<h1>Password required</h1>
<p>This short link is protected. Enter its password to continue.</p>
{error}<form method=post action="/unlock/{code}">
<label for=password>Password</label>
<input id=password name=password type=password autocomplete=current-password required autofocus maxlength={max_length}>
<button type=submit>Continue</button>
</form></html>"""


def unlock_form(code: str, error: str | None, max_length: int) -> str:
    """The form of the link `code` (on the host the page is shown on), `error` above it."""
    shown = f"<p class=error role=alert id=error>{html.escape(error)}</p>\n" if error else ""
    return FORM.format(error=shown, max_length=max_length, code=html.escape(quote(code, safe="")))
