"""The answers the OpenAPI document types with a model (stats, exports, links) are sent in that
shape: real answers read back with the strict models the document is generated from."""

import json

import pytest
from pydantic import BaseModel

from shortlink.api.responses import ExportedLink, ExportedLinks
from shortlink.api.stats_views import AccountStats, LinkStats
from shortlink.schemas.links import LinkView
from tests.events import bearer, http_event
from tests.integration.stream_delivery import StreamDelivery
from tests.integration.test_flow import drain_clicks, stats_response

FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"


def follow_as_a_person(handlers, code):
    headers = {"user-agent": FIREFOX, "referer": "https://news.example.org/post", "accept-language": "de-DE,de"}
    event = http_event("GET", f"/{code}", route="/{code}", path_parameters={"code": code}, headers=headers)
    assert handlers["RedirectFunction"](event, None)["statusCode"] == 302


@pytest.mark.parametrize("granularity", ["day", "hour"])
def test_stats_and_exports_are_sent_as_their_models_say(aws, handlers, api, template, granularity):
    # Given a link with every optional part, followed by a person and counted
    key = aws.new_api_key()
    status, link = api.create(
        key,
        tags=["spring"],
        title="Spring",
        preview={"title": "Spring sale"},
        utm={"source": "news", "campaign": "spring"},
        rules={"allow": {"countries": ["DE", "XX"]}},
        max_clicks=10,
    ).status_and_json()
    assert status == 201, link
    LinkView.model_validate(link)
    follow_as_a_person(handlers, link["code"])
    while drain_clicks(aws, handlers):
        pass
    StreamDelivery(template, aws.dynamodb, handlers).drain()
    # When its stats, the account's and the export are read
    link_answer = stats_response(handlers, key, link["code"], granularity=granularity)
    account = handlers["ManageFunction"](
        http_event("GET", "/stats", headers=bearer(key), query={"granularity": granularity}), None
    )
    exported = handlers["TransferFunction"](
        http_event("GET", "/links/export", headers=bearer(key), query={"format": "json"}), None
    )
    # Then each reads strictly as its model, nothing missing and nothing unknown
    assert link_answer["statusCode"] == account["statusCode"] == exported["statusCode"] == 200
    link_stats = LinkStats.model_validate_json(link_answer["body"])
    assert (link_stats.clicks, link_stats.bots, link_stats.granularity) == (1, 0, granularity)
    assert [top.value for top in link_stats.top.campaign] == ["spring"]
    account_stats = AccountStats.model_validate_json(account["body"])
    assert [(top.code, top.clicks) for top in account_stats.top_links] == [(link["code"], 1)]
    links = ExportedLinks.model_validate_json(exported["body"])
    assert [exported_link.code for exported_link in links.links] == [link["code"]]
    # (links are not strict models: the fields they send are the ones the document names)
    sent = json.loads(exported["body"])["links"][0]
    assert set(sent) == documented_fields(ExportedLink) - {"password_hash"}  # that one only with include=password_hash
    assert set(link) == documented_fields(LinkView)
    assert sent["preview"] == {"title": "Spring sale"}


def documented_fields(model: type[BaseModel]) -> set[str]:
    return set(model.model_json_schema(mode="serialization")["properties"])
