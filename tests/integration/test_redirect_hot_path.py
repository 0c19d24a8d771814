"""The redirect's response path: cache, AWS calls before the response, clicks after it."""

import json
import logging
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from shortlink import wiring as services
from shortlink.clicks.events import ClickPack
from shortlink.redirect import click_sending
from shortlink.redirect.lost_clicks import LOST_CLICK_EVENT
from tests.aws_calls import recording_aws_calls
from tests.events import bearer, http_event
from tests.integration.conftest import ROOT
from tools.developers.devstack.lambda_runtime import load_handler
from tools.developers.devstack.runner import InProcessRunner
from tools.operators import replay_clicks

REDIRECT = "RedirectFunction"


@pytest.fixture
def runner(aws, template) -> Iterator[InProcessRunner]:
    """The redirect function as the local stack runs it: with Lambda's Extensions API emulated."""
    started = InProcessRunner({REDIRECT: template.functions[REDIRECT]}, ROOT, "us-east-1")
    started.load_all()
    yield started
    started.stop()


def new_link(aws, handlers, url: str = "https://example.com/hot") -> str:
    event = http_event("POST", "/links", headers=bearer(aws.new_api_key()), body={"url": url})
    return str(json.loads(handlers["CreateFunction"](event)["body"])["code"])


def follow_event(code: str, method: str = "GET") -> dict[str, Any]:
    return http_event(method, f"/{code}", route="/{code}", path_parameters={"code": code})


def test_the_redirect_registers_an_internal_extension(runner):
    assert runner.extensions[REDIRECT].registered.is_set()


def test_a_hit_makes_no_aws_call_before_the_response_and_a_miss_one_getitem(aws, handlers, runner):
    code = new_link(aws, handlers)
    extension = runner.extensions[REDIRECT]
    releases: list[Callable[[], None]] = []
    with recording_aws_calls() as calls:
        # A miss: one GetItem before the response, nothing else
        assert runner.call(REDIRECT, follow_event(code), after_response=releases.append)["statusCode"] == 302
        assert calls.counts() == {("dynamodb", "GetItem"): 1}
        # Once the response is out, the extension sends the click
        releases.pop()()
        assert extension.wait_until_idle(10)
        assert calls.counts() == {("dynamodb", "GetItem"): 1, ("sqs", "SendMessage"): 1}
        calls.clear()
        # A hit: no AWS call at all before the response
        answer = runner.call(REDIRECT, follow_event(code), after_response=releases.append)
        assert answer["headers"]["Location"] == "https://example.com/hot"
        assert calls.counts() == {}
        releases.pop()()
        assert extension.wait_until_idle(10)
        # Less than a window after the miss's click was sent, the hit's is held, then sent when
        # due: in Lambda at the end of the next invocation, here (never frozen) by the idle thread
        deadline = time.monotonic() + 10
        while not calls.counts() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert calls.counts() == {("sqs", "SendMessage"): 1}
        calls.clear()
        # A HEAD of a hit: no AWS call before the response, and no click after it
        assert runner.call(REDIRECT, follow_event(code, "HEAD"), after_response=releases.append)["body"] == ""
        releases.pop()()
        assert extension.wait_until_idle(10)
        assert calls.counts() == {}
    queued = aws.sqs.receive_message(QueueUrl=aws.queue_urls["ClicksQueue"], MaxNumberOfMessages=10)["Messages"]
    packs = [ClickPack.from_message(message["Body"], message["MessageId"]) for message in queued]
    assert sorted(len(pack.clicks) for pack in packs) == [1, 1]
    # Each click carries its follow's cache outcome, the miss's and then the hit's (ingest emits them)
    clicks = sorted((click for pack in packs for click in pack.clicks), key=lambda click: click.at)
    assert [click.counts for click in clicks] == [{"CacheMisses": 1}, {"CacheHits": 1}]


@pytest.mark.parametrize(
    ("options", "plain"),
    [
        ({}, True),
        ({"redirect_type": 301}, True),
        ({"redirect_type": 308}, True),
        ({"expires_at": "2099-01-01T00:00:00Z"}, False),
        ({"max_clicks": 5}, False),
        ({"rules": {"deny": {"devices": ["bot"]}}}, False),
        ({"password": "correct horse"}, False),
        ({"utm": {"source": "news"}, "forward_query": False, "crawlable": True}, True),
        ({"expired_url": "https://example.com/ended"}, True),
        ({"preview": {"title": "a card"}}, False),
    ],
)
def test_a_hit_answers_exactly_as_the_full_walk_does(aws, handlers, options, plain):
    # Given a link, followed once (a miss: the full walk through its settings)
    key = aws.new_api_key()
    body = {"url": "https://example.com/same", **options}
    created = handlers["CreateFunction"](http_event("POST", "/links", headers=bearer(key), body=body))
    code = json.loads(created["body"])["code"]
    redirect = handlers[REDIRECT]
    missed = redirect(follow_event(code))
    # Then only a plain link is cached with a ready-made response...
    cached = services.cached_links().lookup(code)
    assert cached.hit
    assert (cached.prepared is not None) == plain
    # ...and a hit answers as the miss did, whichever path it takes
    hit = redirect(follow_event(code))
    assert (hit["statusCode"], hit["headers"]) == (missed["statusCode"], missed["headers"])
    # ...and so does a HEAD, without the body
    checked = redirect(follow_event(code, "HEAD"))
    assert (checked["statusCode"], checked["headers"], checked["body"]) == (missed["statusCode"], missed["headers"], "")
    # A POST to a cached plain link is still refused by the full walk
    posted = redirect(http_event("POST", f"/{code}", route="/{code}", path_parameters={"code": code}))
    assert posted["statusCode"] == (400 if "password" in options else 405)  # 400: no password sent


def test_when_sqs_fails_the_redirect_still_works_and_the_click_can_be_replayed(
    aws, handlers, runner, monkeypatch, caplog
):
    code = new_link(aws, handlers)
    real_queue = aws.queue_urls["ClicksQueue"]
    # Given a queue that does not answer
    monkeypatch.setenv("CLICKS_QUEUE_URL", real_queue + "-missing")
    monkeypatch.setattr(click_sending, "RETRY_PAUSE_SECONDS", 0)
    services.reset()
    # When a visitor follows the link
    with caplog.at_level(logging.ERROR, logger="shortlink.clicks"):
        assert runner.call(REDIRECT, follow_event(code))["statusCode"] == 302
        assert runner.extensions[REDIRECT].wait_until_idle(10)
    # Then the click is one structured log line
    lost = [record.getMessage() for record in caplog.records if LOST_CLICK_EVENT in record.getMessage()]
    assert len(lost) == 1
    assert json.loads(lost[0])["click"]["code"] == code
    # And the replay command puts it on the queue, where ingest counts it
    assert replay_clicks.main(["--queue-url", real_queue], lines=[f"[ERROR] 2026-01-01 req-id {lost[0]}\n"]) == 0
    messages = aws.sqs.receive_message(QueueUrl=real_queue, MaxNumberOfMessages=10)["Messages"]
    [pack] = [ClickPack.from_message(message["Body"], message["MessageId"]) for message in messages]
    assert [click.code for click in pack.clicks] == [code]
    assert pack.pack_id == json.loads(lost[0])["pack"]


def test_an_edit_reaches_visitors_after_the_cache_ttl(aws, handlers, monkeypatch):
    monkeypatch.setenv("LINK_CACHE_TTL_SECONDS", "2")
    services.reset()
    code = new_link(aws, handlers, "https://example.com/before")
    redirect = handlers[REDIRECT]
    # Clients and secrets loaded first (a warm environment), so that the TTL is not spent on them
    redirect(follow_event(new_link(aws, handlers, "https://example.com/other")))
    assert redirect(follow_event(code))["headers"]["Location"] == "https://example.com/before"
    # An edit straight in the table (what PATCH will do)
    aws.dynamodb.update_item(
        TableName="LinksTable",
        Key={"code": {"S": code}},
        UpdateExpression="SET #u = :u",
        ExpressionAttributeNames={"#u": "url"},
        ExpressionAttributeValues={":u": {"S": "https://example.com/after"}},
    )
    assert redirect(follow_event(code))["headers"]["Location"] == "https://example.com/before"
    time.sleep(2.1)
    assert redirect(follow_event(code))["headers"]["Location"] == "https://example.com/after"


def test_outside_lambda_clicks_are_sent_inline_and_it_says_so(template, monkeypatch, caplog):
    monkeypatch.delenv("AWS_LAMBDA_RUNTIME_API", raising=False)
    function = template.functions[REDIRECT]
    with caplog.at_level(logging.WARNING, logger="shortlink.clicks"):
        load_handler(ROOT / (function.codeuri or ""), function.handler or "", "test_fn_redirect_inline")
    assert any("clicks are sent inline" in record.getMessage() for record in caplog.records)


def test_the_extension_survives_a_failure_after_the_response(aws, handlers, runner, monkeypatch, caplog):
    code = new_link(aws, handlers)
    extension = runner.extensions[REDIRECT]
    # The response path is configured (as a first request does: the link cache and the services)...
    services.cached_links()
    services.redirect_services(runner.module(REDIRECT).dispatcher)
    # Given a broken configuration that only the after-response work trips over (read with the
    # redirect's own settings, as in Lambda, which require the queue)
    monkeypatch.setenv("POWERTOOLS_SERVICE_NAME", "redirect")
    monkeypatch.setenv("CLICKS_QUEUE_URL", "")
    services.click_publisher.cache_clear()
    services.forget_settings()
    with caplog.at_level(logging.ERROR, logger="shortlink.clicks"):
        assert runner.call(REDIRECT, follow_event(code))["statusCode"] == 302
        # Then the extension still asks for the next event, so the next invocation runs
        assert extension.wait_until_idle(10)
    assert any("after-response work failed" in record.getMessage() for record in caplog.records)
    monkeypatch.setenv("CLICKS_QUEUE_URL", aws.queue_urls["ClicksQueue"])
    services.forget_settings()
    assert runner.call(REDIRECT, follow_event(code))["statusCode"] == 302
    assert extension.wait_until_idle(10)
    assert len(aws.sqs.receive_message(QueueUrl=aws.queue_urls["ClicksQueue"]).get("Messages", [])) == 1


def test_the_response_path_loads_neither_pynamodb_nor_boto3_nor_powertools(aws):
    # A fresh interpreter: the redirect's init and the first lookup's adapter, then the modules.
    probe = """
import sys
from pathlib import Path
from tools.developers.devstack.lambda_runtime import load_handler
load_handler(Path("functions/redirect"), "app.lambda_handler", "probe_redirect")
from shortlink import wiring as services
services.cached_links()
packages = {name.split(".")[0] for name in sys.modules}
print(",".join(packages | {name for name in sys.modules if name.startswith("shortlink.")}))
"""
    result = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "layers" / "common"), str(ROOT)])},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    loaded = set(result.stdout.strip().split(","))
    assert "botocore" in loaded  # the probe itself is meaningful
    assert not loaded & {
        "pynamodb",
        "boto3",
        "aws_lambda_powertools",
        "pydantic",
        "shortlink.codes.generator",
        # The clicks' model and packing: loaded by the first click's work, after the response.
        "shortlink.clicks.events",
        "shortlink.clicks.packing",
        # The bot lists, ua-parser and the IP databases: read by the click's work, after the response.
        "shortlink.clicks.bots",
        "shortlink.clicks.devices",
        "ua_parser",
        "ua_parser_rs",
        "shortlink.clicks.crawler_lists",
        "crawleruseragents",
        "crawlerdetect",
        "re2",
        "maxminddb",
        "ada_url",
        "cffi",
        # The composition root's modules of the other functions: each is imported on first use.
        "shortlink.wiring.audit",
        "shortlink.wiring.edge",
        "shortlink.wiring.links",
        "shortlink.wiring.people",
        "shortlink.wiring.sign_in",
        "shortlink.wiring.webhooks",
    }


def test_the_domain_address_routes_are_the_templates_and_the_handler_sends_each_there(aws, handlers):
    from samcli.yamlhelper import yaml_parse

    from shortlink.redirect import routes as redirect_routes
    from shortlink.redirect.domain_addresses import ROUTES

    template = yaml_parse((ROOT / "template.yaml").read_text())
    events = template["Resources"][REDIRECT]["Properties"]["Events"].values()
    routes = {f"{event['Properties']['Method']} {event['Properties']['Path']}" for event in events}
    # The routes a load balancer's path is matched against are the template's; those without a
    # code are the domain's pages, the others the follows
    assert routes == set(redirect_routes.ROUTES)
    assert (
        routes - set(ROUTES)
        == set(redirect_routes.FOLLOWS)
        == {
            "GET /{code}",
            "HEAD /{code}",
            "POST /{code}",
            "POST /unlock/{code}",
        }
    )
    # Each is answered by its page, not the walk: robots.txt is text, the others a domain's 404 page here
    robots = handlers[REDIRECT](http_event("GET", "/robots.txt", route="/robots.txt"))
    assert robots["statusCode"] == 200
    assert robots["body"].startswith("User-agent: *")
    for path, route in (("/", "/"), ("/.well-known/assetlinks.json", "/.well-known/{file}")):
        answer = handlers[REDIRECT](http_event("GET", path, route=route, path_parameters={"file": "assetlinks.json"}))
        assert answer["statusCode"] == 404, (path, answer)
