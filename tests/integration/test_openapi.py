"""The published OpenAPI document: generated from the code, committed, served with its page."""

import base64
import gzip
import json
import re

from tests.events import http_event
from tools.developers.openapi import DOCUMENT, openapi_document

METHODS = {"get", "post", "patch", "delete", "put", "head", "options"}


def test_the_committed_document_is_what_the_code_generates():
    # When this fails: make openapi, and commit functions/docs/openapi.json.
    assert DOCUMENT.read_text() == openapi_document()


def test_the_document_describes_every_route_of_the_template_and_no_other(template):
    document = json.loads(DOCUMENT.read_text())
    documented = {
        (method.upper(), path) for path, item in document["paths"].items() for method in item if method in METHODS
    }
    # HEAD answers as GET does (HTTP semantics): OpenAPI describes it with the GET.
    # The console's routes serve HTML pages to browsers (README, Console): not part of the API.
    routes = [route for route in template.api().routes if route.path.split("/")[1] != "console"]
    served = {(method, route.path) for route in routes for method in route.methods if method != "HEAD"}
    assert documented == served


def test_api_key_routes_need_the_bearer_scheme_and_public_ones_do_not():
    document = json.loads(DOCUMENT.read_text())
    assert document["components"]["securitySchemes"]["apiKey"] == {
        "type": "http",
        "scheme": "bearer",
        "description": document["components"]["securitySchemes"]["apiKey"]["description"],
    }
    assert document["security"] == [{"apiKey": []}]
    public = {
        (method, path)
        for path, item in document["paths"].items()
        for method, operation in item.items()
        if operation.get("security") == []
    }
    assert public == {
        ("get", "/{code}"),
        ("post", "/{code}"),
        ("post", "/unlock/{code}"),  # the unlock form's own address
        ("get", "/robots.txt"),
        ("get", "/openapi.json"),
        ("get", "/docs"),
        *(("get", "/"), ("get", "/.well-known/{file}")),  # a domain's root and app-link files
    }


def test_errors_are_documented_in_the_shape_they_are_sent():
    document = json.loads(DOCUMENT.read_text())
    statuses = set()
    for path, item in document["paths"].items():
        for operation in item.values():
            for status, response in operation["responses"].items():
                statuses.add(int(status))
                if path.startswith(("/links", "/keys")) and int(status) >= 400:
                    schema = response["content"]["application/json"]["schema"]
                    body = "MissingScopeBody" if status == "403" else "ErrorBody"
                    if (path, status) == ("/links/bulk/changes", "422"):  # an ErrorBody naming each refused link
                        body = "BulkRefusedBody"
                    assert schema == {"$ref": f"#/components/schemas/{body}"}, (path, status)
    assert {201, 204, 401, 403, 404, 409, 410, 413, 415, 422, 429, 503} <= statuses
    assert document["components"]["schemas"]["ErrorBody"]["required"] == ["error", "message"]


def test_a_links_redirects_send_the_headers_documented_for_them(aws, handlers, api):
    responses = json.loads(DOCUMENT.read_text())["paths"]["/{code}"]["get"]["responses"]
    key = aws.new_api_key()
    for status in (301, 302, 307, 308):
        documented = responses[str(status)]["headers"]
        assert {"Location", "X-Robots-Tag"} <= set(documented)
        # Given a link that is not crawlable, followed and checked (HEAD answers as GET does)
        link = api.new_link(key, redirect_type=status)
        for method in ("GET", "HEAD"):
            event = http_event(method, f"/{link['code']}", route="/{code}", path_parameters={"code": link["code"]})
            answer = handlers["RedirectFunction"](event)
            assert answer["statusCode"] == status
            assert set(documented) <= set(answer["headers"])
            assert answer["headers"]["X-Robots-Tag"] in documented["X-Robots-Tag"]["schema"]["enum"]


def test_the_unlock_form_and_a_preview_card_send_the_headers_documented_for_them(aws, handlers, api):
    documented = json.loads(DOCUMENT.read_text())["paths"]["/{code}"]["get"]["responses"]["200"]["headers"]
    key = aws.new_api_key()
    locked = api.new_link(key, password="correct horse")
    carded = api.new_link(key, preview={"title": "Launch"})
    crawlable = api.new_link(key, preview={"title": "Indexed"}, crawlable=True)
    slack = {"user-agent": "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)"}
    answers = {}
    for name, link, headers in (("form", locked, {}), ("card", carded, slack), ("crawlable", crawlable, slack)):
        code = link["code"]
        event = http_event("GET", f"/{code}", route="/{code}", path_parameters={"code": code}, headers=headers)
        answers[name] = handlers["RedirectFunction"](event)
        assert answers[name]["statusCode"] == 200, name
    for name in ("form", "card"):
        assert set(documented) <= set(answers[name]["headers"]), name
    assert set(documented) - set(answers["crawlable"]["headers"]) == {"X-Robots-Tag"}
    for answer in answers.values():
        for header, value in answer["headers"].items():
            if "enum" in documented.get(header, {}).get("schema", {}):
                assert value in documented[header]["schema"]["enum"], header


def docs_get(handlers, path, headers=None, query=None):
    event = http_event("GET", path, headers=headers, query=query)
    return handlers["DocsFunction"](event)


def test_the_docs_function_serves_the_document_and_a_page_with_nothing_from_elsewhere(handlers):
    answer = docs_get(handlers, "/openapi.json")
    assert answer["statusCode"] == 200
    assert answer["body"] == DOCUMENT.read_text()
    assert docs_get(handlers, "/docs", query={"format": "json"})["body"] == DOCUMENT.read_text()
    page = docs_get(handlers, "/docs")
    assert page["statusCode"] == 200
    assert page["headers"]["Content-Type"].startswith("text/html")
    assert "frame-ancestors 'none'" in page["headers"]["Content-Security-Policy"]
    html = page["body"]
    assert "SwaggerUIBundle" in html
    assert '"/links/bulk"' in html  # the document is in the page
    # No script, style or font is fetched from another origin.
    assert not re.search(r"<(script|link)[^>]+(src|href)=['\"]https?://", html)
    zipped = docs_get(handlers, "/docs", headers={"accept-encoding": "gzip"})
    assert zipped["isBase64Encoded"] is True
    assert gzip.decompress(base64.b64decode(zipped["body"])).decode() == html
