"""Many environments share one id counter: every link gets its own code.

On dynalite, a DynamoDB server that serialises each item's writes as DynamoDB does: moto,
called from eight threads at once, can answer a write it made with a 500, which botocore
retries into a conditional failure, so the race it would test is moto's own."""

from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Any

import boto3
import pytest

from shortlink.adapters.dynamodb.id_counter import DynamoCounterStore
from shortlink.adapters.dynamodb.link_store import DynamoLinkRepository
from shortlink.codes.generator import CodeGenerator
from shortlink.codes.id_blocks import IdBlockAllocator
from shortlink.links.use_cases import create_link
from shortlink.settings.codes import CodeSettings
from shortlink.wiring import resources, settings_of
from tests.e2e.running_stack import DYNALITE, Dynalite
from tools.developers.devstack.local_env import DEV_PERMUTATION_KEY
from tools.developers.devstack.resources import create_tables

WORKERS = 8
CREATES_PER_WORKER = 2000
BLOCK_SIZE = 250  # small blocks, so the workers go back to the shared counter often


@pytest.mark.slow
def test_8_workers_x_2000_creates_get_16000_distinct_codes(aws, template, monkeypatch):
    if not DYNALITE.exists():
        pytest.skip("dynalite is not installed: run `npm ci` (make test does)")
    dynalite = Dynalite.start()
    monkeypatch.setenv("AWS_ENDPOINT_URL_DYNAMODB", dynalite.endpoint)
    try:
        dynamodb = boto3.client("dynamodb", endpoint_url=dynalite.endpoint)
        create_tables(template, dynamodb)
        creates_on_one_counter(dynamodb)
    finally:
        dynalite.stop()


def creates_on_one_counter(dynamodb: Any) -> None:
    config = resources()
    length = settings_of(CodeSettings).length
    links = DynamoLinkRepository(config.links_table.value)

    def worker(index: int) -> list[str]:
        # Each worker is an execution environment: its own allocator and generator.
        allocator = IdBlockAllocator(DynamoCounterStore(config.counters_table.value), BLOCK_SIZE)
        codes = CodeGenerator(allocator, DEV_PERMUTATION_KEY.encode(), length)
        now = datetime.now(UTC)
        return [
            create_link(f"https://example.com/{index}/{i}", f"worker-{index}", codes, links, now).code
            for i in range(CREATES_PER_WORKER)
        ]

    with ThreadPoolExecutor(WORKERS) as pool:
        results = list(pool.map(worker, range(WORKERS)))

    codes = [code for result in results for code in result]
    assert len(codes) == WORKERS * CREATES_PER_WORKER
    assert len(set(codes)) == WORKERS * CREATES_PER_WORKER
    pages = dynamodb.get_paginator("scan").paginate(TableName=config.links_table.value, Select="COUNT")
    assert sum(page["Count"] for page in pages) == WORKERS * CREATES_PER_WORKER
    counter = dynamodb.get_item(TableName=config.counters_table.value, Key={"name": {"S": "link-ids"}})["Item"]
    reserved = int(counter["value"]["N"])
    # Whole blocks only; beyond the 16,000 ids used, each worker may hold the rest of one block,
    # grown by the few codes skipped for spelling a blocked word.
    assert reserved % BLOCK_SIZE == 0
    assert WORKERS * CREATES_PER_WORKER <= reserved <= WORKERS * (CREATES_PER_WORKER + BLOCK_SIZE)
