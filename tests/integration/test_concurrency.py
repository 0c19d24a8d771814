"""Many environments share one id counter: every link gets its own code."""

from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime

import pytest

from shortlink.adapters.dynamodb.id_counter import DynamoCounterStore
from shortlink.adapters.dynamodb.link_store import DynamoLinkRepository
from shortlink.codes.generator import CodeGenerator
from shortlink.codes.id_blocks import IdBlockAllocator
from shortlink.links.use_cases import create_link
from shortlink.settings.codes import CodeSettings
from shortlink.wiring import resources, settings_of
from tools.devstack.local_env import DEV_PERMUTATION_KEY

WORKERS = 8
CREATES_PER_WORKER = 2000
BLOCK_SIZE = 250  # small blocks, so the workers go back to the shared counter often


@pytest.mark.slow
def test_8_workers_x_2000_creates_get_16000_distinct_codes(aws):
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
    assert aws.item_count(config.links_table.value) == WORKERS * CREATES_PER_WORKER
    counter = aws.dynamodb.get_item(TableName=config.counters_table.value, Key={"name": {"S": "link-ids"}})["Item"]
    reserved = int(counter["value"]["N"])
    # Whole blocks only; beyond the 16,000 ids used, each worker may hold the rest of one block,
    # grown by the few codes skipped for spelling a blocked word.
    assert reserved % BLOCK_SIZE == 0
    assert WORKERS * CREATES_PER_WORKER <= reserved <= WORKERS * (CREATES_PER_WORKER + BLOCK_SIZE)
