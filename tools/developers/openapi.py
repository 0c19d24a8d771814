"""The API's OpenAPI 3.1 document, generated from the Powertools resolvers of the create and
manage functions, merged (Powertools' OpenAPIMerge), with the redirect's routes and the docs'
own described beside them (the redirect has no resolver: it would cost its cold start).

    python -m tools.developers.openapi           # writes functions/docs/openapi.json (make openapi)
    python -m tools.developers.openapi --check   # exit 1 if the committed document drifted from the code
"""

import argparse
import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

from aws_lambda_powertools.event_handler.openapi.merge import OpenAPIMerge
from aws_lambda_powertools.event_handler.openapi.models import HTTPBearer

# Each route's scope is its security requirement.
from shortlink.api.auth import API_KEY_SCHEME, PERSON_SCHEME
from shortlink.redirect.responses import NOINDEX, PERMANENT_REDIRECT_MAX_AGE

ROOT = Path(__file__).resolve().parents[2]
DOCUMENT = ROOT / "functions" / "docs" / "openapi.json"
RESOLVER_FUNCTIONS = ("create", "manage", "transfer", "webhook_endpoints", "keys", "team")
DESCRIPTION = (
    "A serverless URL shortener. Every route but the redirect (`/{code}`) and these docs needs "
    "`Authorization: Bearer <api key>` holding the route's scopes (its security requirement names them, "
    "all needed). An answer carries only what the key's scopes may read. A "
    "request is checked in this order: body size (413), API key (401), scopes (403, `scope` names the first "
    "missing one), media type (415: a body must be `application/json`, but the file of `/links/import`), then the "
    'body as strict JSON and its fields (422, the message names the field). Errors are `{"error": ..., '
    '"message": ...}`.'
)

SECURITY_SCHEMES: dict[str, Any] = {
    API_KEY_SCHEME: HTTPBearer(
        description="an API key: python -m tools.operators.admin keys create --name NAME, or POST /keys"
    ),
    PERSON_SCHEME: HTTPBearer(
        bearerFormat="JWT",
        description="an access token of the stack's user pool (a person; with X-Shortlink-Workspace on key routes too)",
    ),
}
HTML = {"text/html": {"schema": {"type": "string"}}}
CODE = {
    "name": "code",
    "in": "path",
    "required": True,
    "description": "a generated code, a custom slug or a private code",
    "schema": {"type": "string"},
}


# A follow's own query parameters, any names: merged into the destination (forward_query).
VISITOR_QUERY = {
    "name": "parameters",
    "in": "query",
    "description": "the visitor's query parameters, merged into the destination unless forward_query is false",
    "style": "form",
    "explode": True,
    # Any name, any value, repeated or not: no query is invalid here, so none is documented as such.
    "schema": {},
}

# POST /links/import reads its body as a file, which no resolver parameter describes. Any media
# type is read the same way; the document names the two that client generators can send a file
# as (a union with text/csv or application/sql leaves the operation out of a generated client).
IMPORT_FILE = {
    "required": True,
    "description": "the file as it is: CSV, a YOURLS SQL dump, JSON (an export, Kutt's), sent with any"
    " Content-Type (one that names a kind, text/csv or application/sql too, must match the file's)",
    "content": {
        "application/octet-stream": {"schema": {"type": "string", "format": "binary"}},
        # JSON files are an object (an export, Kutt's) or a list of links.
        "application/json": {"schema": {"anyOf": [{"type": "object"}, {"type": "array", "items": {}}]}},
    },
}


# The header every redirect of a short domain carries but a crawlable link's (shortlink.redirect
# responses and domain_pages).
ROBOTS_HEADERS = {
    name: {
        "description": "on every redirect but a crawlable link's: search engines index the destination,"
        " not the short link",
        "schema": {"type": "string", "enum": [value]},
    }
    for name, value in NOINDEX.items()
}


def _redirect(description: str) -> dict[str, Any]:
    """A redirect, which crawlers are told not to index: a link's (unless crawlable), a fallback's."""
    return {
        "description": description,
        "headers": {
            "Location": {"description": "the destination", "schema": {"type": "string"}},
            "Cache-Control": {
                "description": "no-store on a 302, 303 or 307 and on a link with rules or max_clicks, so"
                " that every follow is counted and edits apply at once; on a 301 or 308,"
                f" public, max-age={PERMANENT_REDIRECT_MAX_AGE} at most (never past the link's expiry)",
                "schema": {"type": "string"},
            },
            **ROBOTS_HEADERS,
        },
    }


def _page(description: str) -> dict[str, Any]:
    return {"description": description, "content": HTML}


# What the unlock form and a preview card both send (shortlink.redirect.unlock_page, shortlink.links.previews).
LINK_PAGE_HEADERS = {
    "Cache-Control": {
        "description": "never cached: the form is per visitor, a card follows the link's edits",
        "schema": {"type": "string", "enum": ["no-store"]},
    },
    "Content-Security-Policy": {
        "description": "nothing loaded but inline style (the form) or the card's image",
        "schema": {"type": "string"},
    },
    "X-Robots-Tag": {
        **ROBOTS_HEADERS["X-Robots-Tag"],
        "description": "on the form always, on a card unless the link is crawlable",
    },
}


UNLOCK: dict[str, Any] = {
    "summary": "Unlock a link with its password",
    "operationId": "unlock",
    "security": [],
    "parameters": [CODE],
    "requestBody": {
        "required": True,
        "content": {
            "application/x-www-form-urlencoded": {
                "schema": {"type": "object", "properties": {"password": {"type": "string"}}}
            }
        },
    },
    "responses": {
        "303": _redirect("the right password: to the destination"),
        "400": _page("no password: the form again"),
        "403": _page("a wrong password, or denied by the link's rules"),
        "404": _page("no such link, or not yet valid"),
        "405": _page("the link has no password (Allow: GET)"),
        "410": _page("deleted, expired, or its max_clicks are used up"),
        "413": _page("the form is over 1 KiB"),
        "429": _page("too many attempts from this address (Retry-After)"),
        "503": _page("storage is busy: retry (Retry-After)"),
    },
}


# The redirect function's routes (functions/redirect/app.py) and the docs function's.
PUBLIC_PATHS: dict[str, Any] = {
    "/{code}": {
        "get": {
            "summary": "Follow a link",
            "operationId": "follow",
            "security": [],
            "parameters": [CODE, VISITOR_QUERY],
            "responses": {
                "200": {
                    **_page("the unlock form of a link with a password, or a link-preview bot's card (preview)"),
                    "headers": LINK_PAGE_HEADERS,
                },
                "301": _redirect("to the destination (the link's redirect_type)"),
                "302": _redirect(
                    "to the destination (the link's redirect_type), or to expired_url instead of 410,"
                    " or to the domain's not_found_url instead of 404"
                ),
                **{str(status): _redirect("to the destination (the link's redirect_type)") for status in (307, 308)},
                "403": _page("the link's access rules deny this visitor"),
                "404": _page("no such link, or not yet valid, or a host that is none of the stack's domains"),
                "410": _page("deleted, expired, or its max_clicks are used up"),
                "414": _page("the destination with the visitor's query would pass 2,048 characters"),
                "503": _page("storage is busy: retry (Retry-After)"),
            },
        },
        "post": UNLOCK,
    },
    # The unlock form's own address (shortlink.redirect.routes' UNLOCK): it answers as POST /{code}.
    "/unlock/{code}": {"post": {**UNLOCK, "operationId": "unlockForm", "summary": "Unlock a link from its form"}},
    "/": {
        "get": {
            "summary": "A short domain's root: its root URL",
            "operationId": "domainRoot",
            "security": [],
            "responses": {
                "302": _redirect("the domain's root_url (README, Domains)"),
                "404": _page("the domain has no root_url"),
            },
        }
    },
    "/.well-known/{file}": {
        "get": {
            "summary": "A short domain's app-link files",
            "operationId": "wellKnownFile",
            "security": [],
            "parameters": [
                {
                    "name": "file",
                    "in": "path",
                    "required": True,
                    "schema": {"type": "string", "enum": ["apple-app-site-association", "assetlinks.json"]},
                }
            ],
            "responses": {
                "200": {
                    "description": "the file, as the domain's settings hold it",
                    "content": {"application/json": {}},
                },
                "404": _page("the domain has no such file"),
            },
        }
    },
    "/robots.txt": {
        "get": {
            "summary": "All disallowed but the domain's crawlable links",
            "operationId": "robots",
            "security": [],
            "responses": {
                "200": {
                    "description": "robots.txt (cached 5 minutes)",
                    "content": {"text/plain": {"schema": {"type": "string"}}},
                },
                "404": _page("a host that is none of the stack's domains"),
                "503": _page("storage is busy: retry (Retry-After)"),
            },
        }
    },
    "/openapi.json": {
        "get": {
            "summary": "This document",
            "operationId": "openapi",
            "security": [],
            "responses": {"200": {"description": "the OpenAPI document", "content": {"application/json": {}}}},
        }
    },
    "/docs": {
        "get": {
            "summary": "This document as a page (Swagger UI, served by the stack)",
            "operationId": "docs",
            "security": [],
            "responses": {"200": _page("the page")},
        }
    },
}


def _resolver_schema(function: str) -> dict[str, Any]:
    source = ROOT / "functions" / function / "app.py"
    spec = importlib.util.spec_from_file_location(f"openapi_{function}", source)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {source}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    schema = module.app.get_openapi_schema(security_schemes=SECURITY_SCHEMES)
    document: dict[str, Any] = json.loads(schema.model_dump_json(by_alias=True, exclude_none=True))
    return document


def openapi_document() -> str:
    """The merged document as the committed file holds it."""
    merge = OpenAPIMerge(
        title="Shortlink",
        version="1.0.0",
        description=DESCRIPTION,
        security_schemes=SECURITY_SCHEMES,
        security=[{API_KEY_SCHEME: []}],
        on_conflict="error",
    )
    for function in RESOLVER_FUNCTIONS:
        merge.add_schema(_resolver_schema(function))
    merge.add_schema({"paths": PUBLIC_PATHS})
    document = merge.get_openapi_schema()
    document["paths"]["/links/import"]["post"]["requestBody"] = IMPORT_FILE
    _name_parameter_bounds(document)
    _drop_unused_schemas(document)
    return merge.get_openapi_json_schema() + "\n"


# pydantic's names of a bound and JSON Schema's: Powertools writes the former for a query
# parameter that also has a validator (the ASCII-digit check of `limit` and `scale`).
BOUND_NAMES = {"ge": "minimum", "le": "maximum", "gt": "exclusiveMinimum", "lt": "exclusiveMaximum"}


def _name_parameter_bounds(document: dict[str, Any]) -> None:
    for operations in document["paths"].values():
        for operation in operations.values():
            for parameter in operation.get("parameters", []) if isinstance(operation, dict) else []:
                schema = parameter.get("schema", {})
                for pydantic_name, schema_name in BOUND_NAMES.items():
                    if pydantic_name in schema:
                        schema[schema_name] = schema.pop(pydantic_name)


def _drop_unused_schemas(document: dict[str, Any]) -> None:
    """Powertools adds its own validation-error shapes; the API answers ErrorBody instead."""
    schemas = document["components"]["schemas"]
    while unused := [
        name for name in schemas if f'"#/components/schemas/{name}"' not in json.dumps(document, default=str)
    ]:
        for name in unused:
            del schemas[name]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="compare with the committed document instead")
    args = parser.parse_args(argv)
    document = openapi_document()
    if args.check:
        if DOCUMENT.read_text() != document:
            print(f"{DOCUMENT.relative_to(ROOT)} differs from the code: run make openapi", file=sys.stderr)
            return 1
        return 0
    DOCUMENT.write_text(document)
    print(f"wrote {DOCUMENT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
