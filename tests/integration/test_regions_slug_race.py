"""The same slug claimed at the same instant through two regions' create functions: one 201 and
one 409, because both regions make the claim in the home region's table. Each region's function
runs in a process of its own (its own environment, as in AWS), both against one moto server,
which keeps the regions' tables apart; a barrier releases their creates together."""

import multiprocessing
import os
from pathlib import Path
from typing import Any
from urllib.request import Request, urlopen

import boto3
import pytest
from moto.server import ThreadedMotoServer

from shortlink.access.api_keys import generate_api_key, hash_api_key, key_id_for
from shortlink.adapters.dynamodb.api_key_store import DynamoApiKeyStore
from tests.e2e.running_stack import free_port
from tests.events import bearer, http_event
from tests.integration.conftest import use_moto_credentials
from tests.integration.regions import HOME, REGIONS
from tools.developers.devstack.local_env import function_environment, own_environment
from tools.developers.devstack.resources import create_tables
from tools.developers.devstack.template import LocalTemplate

ROOT = Path(__file__).resolve().parents[2]
RACERS = REGIONS[:2]


def create_in_region(environment: dict[str, str], key: str, barrier: Any, answers: Any) -> None:
    """One region's create function: warmed by a first create, then the contested one."""
    os.environ.update(environment)
    from tools.developers.devstack.lambda_runtime import LambdaContext, load_handler

    function = LocalTemplate.load(ROOT / "template.yaml").functions["CreateFunction"]
    handler = load_handler(
        ROOT / (function.codeuri or ""), function.handler or "", "race_create", own_environment(function)
    )
    region = environment["AWS_REGION"]

    def create(slug: str) -> int:
        event = http_event(
            "POST", "/links", headers=bearer(key), body={"url": f"https://example.com/{region}", "slug": slug}
        )
        return int(handler(event, LambdaContext("CreateFunction", 512, 10, region))["statusCode"])

    warm = create(f"warm-{region}")  # clients made and modules loaded: the race is the write alone
    barrier.wait(timeout=120)
    answers.put((region, warm, create("launch")))


def reset_moto(endpoint: str) -> None:
    """Forget every region's resources: moto's state is per process, shared by its servers."""
    request = Request(f"{endpoint}/moto-api/reset", method="POST")  # noqa: S310 - our own http server
    urlopen(request, timeout=10).close()  # noqa: S310


@pytest.mark.slow
@pytest.mark.parametrize(("home", "expected"), [(HOME, [201, 409]), ("", [201, 201])], ids=["home", "no-home"])
def test_the_same_slug_at_the_same_instant_through_two_regions(template, monkeypatch, home, expected):
    # Given two regions' tables on one moto server, and a key made at home
    use_moto_credentials(monkeypatch)
    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    endpoint = f"http://127.0.0.1:{port}"
    try:
        monkeypatch.setenv("AWS_ENDPOINT_URL", endpoint)
        reset_moto(endpoint)
        for region in RACERS:
            create_tables(template, boto3.client("dynamodb", region_name=region))
        key = generate_api_key()
        DynamoApiKeyStore("ApiKeysTable", HOME).add(hash_api_key(key), key_id_for(hash_api_key(key)), "racer")
        if not home:  # each region its own home: the key must be found in both
            DynamoApiKeyStore("ApiKeysTable", RACERS[1]).add(hash_api_key(key), key_id_for(hash_api_key(key)), "racer")
        base = {
            **function_environment(template, {}),
            "WEBHOOK_QUEUE_URL": "",
            "AWS_ENDPOINT_URL": endpoint,
            "AWS_ACCESS_KEY_ID": "testing",
            "AWS_SECRET_ACCESS_KEY": "testing",
            "SHORTLINK_REGIONS": ",".join(REGIONS),
            "SHORTLINK_HOME_REGION": home,
        }
        # When both regions' create functions claim "launch" at once
        spawn = multiprocessing.get_context("spawn")
        barrier, answers = spawn.Barrier(len(RACERS)), spawn.Queue()
        racers = [
            spawn.Process(
                target=create_in_region,
                args=({**base, "AWS_REGION": region, "AWS_DEFAULT_REGION": region}, key, barrier, answers),
            )
            for region in RACERS
        ]
        for racer in racers:
            racer.start()
        results = [answers.get(timeout=180) for _ in racers]
        for racer in racers:
            racer.join(timeout=30)
        # Then with a home region one wins and the other is told the slug is taken; without one,
        # both regions believe they won (global tables would keep one link, silently)
        assert all(warm == 201 for _, warm, _ in results), results
        assert sorted(status for _, _, status in results) == expected, results
        homes = [boto3.client("dynamodb", region_name=region) for region in RACERS]
        holding = [
            client.get_item(TableName="LinksTable", Key={"code": {"S": "launch"}}).get("Item") for client in homes
        ]
        assert sum(item is not None for item in holding) == (1 if home else 2)
    finally:
        reset_moto(endpoint)
        server.stop()
