"""The console's HTML answers: pages rendered by Jinja2 (every value escaped), the headers each
carries (a strict CSP: nothing inline, nothing from elsewhere, never framed) and its cookies."""

from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.shared.cookies import Cookie, SameSite

from shortlink.console.sessions import COOKIE_PATH, SESSION_COOKIE, SESSION_LIFETIME
from shortlink.console.world_map import choropleth

TEMPLATES = Path(__file__).with_name("templates")
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
PAGE_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}
HTML = "text/html; charset=utf-8"


def link_path(code: str, domain: str | None, suffix: str = "", **query: str) -> str:
    """A console page of the link `code` on `domain` (as the API shows it: None without Domains),
    named by `?domain=` as the API's routes name it."""
    parameters = {**({"domain": domain} if domain else {}), **query}
    return f"/console/links/{quote(code)}{suffix}" + (f"?{urlencode(parameters)}" if parameters else "")


@cache
def environment() -> Any:
    import jinja2  # the console alone renders HTML

    templates = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    templates.globals["link_path"] = link_path
    templates.globals["choropleth"] = choropleth
    return templates


def page(template: str, status: int = 200, cookies: list[Cookie] | None = None, **context: Any) -> Response[Any]:
    body = environment().get_template(template).render(**context)
    return Response(status_code=status, content_type=HTML, body=body, headers=dict(PAGE_HEADERS), cookies=cookies)


def see_other(location: str, cookies: list[Cookie] | None = None) -> Response[Any]:
    """A 303 after a form post (the browser then GETs `location`)."""
    headers = {**PAGE_HEADERS, "Location": location}
    return Response(status_code=303, content_type=HTML, body="", headers=headers, cookies=cookies)


def session_cookie(value: str, max_age: int = int(SESSION_LIFETIME.total_seconds())) -> Cookie:
    """Readable by no script, sent by the browser only to the console over HTTPS, never with a
    request another site starts. An empty value with max_age 0 ends the session."""
    return Cookie(
        name=SESSION_COOKIE,
        value=value,
        path=COOKIE_PATH,
        secure=True,
        http_only=True,
        same_site=SameSite.STRICT_MODE,
        max_age=max_age,
    )


def ended_session_cookie() -> Cookie:
    return session_cookie("", max_age=0)
