"""The clicks the edge answered, read from real-time log records on Kinesis by the ingest
function the template deploys: counted once by their request id through duplicated, reordered
and redelivered records, with bots and repeats, and a record whose clicks could not be written
offered again."""

import base64
import random
import secrets
from collections import Counter
from datetime import UTC, datetime
from unittest import mock
from urllib.parse import quote

from shortlink import wiring as services
from shortlink.clicks.tally import dimension_counter
from shortlink.errors import StorageUnavailable
from shortlink.redirect.edge_log_clicks import LOG_FIELDS
from tools.developers.devstack.edge_logs import log_line

AT = datetime.now(UTC).replace(microsecond=0)
DAY = AT.date().isoformat()
BROWSER = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36"
BOT = "Googlebot/2.1 (+http://www.google.com/bot.html)"


def line(code, user_agent=BROWSER, offset=0.0, result="FunctionGeneratedResponse", method="GET"):
    fields = {
        "timestamp": f"{AT.timestamp() + offset:.3f}",
        "c-ip": "198.51.100.7",
        "c-country": "FR",
        "cs-method": method,
        "cs-host": "sho.rt",
        "cs-uri-stem": f"/{code}",
        "cs-user-agent": quote(user_agent),
        "x-edge-request-id": secrets.token_urlsafe(42),
        "x-edge-result-type": result,
        "sc-status": "302",
    }
    assert set(fields) <= set(LOG_FIELDS)
    return log_line(fields)


def records(lines, first=1):
    return [
        {
            "eventSource": "aws:kinesis",
            "kinesis": {"sequenceNumber": str(first + index), "data": base64.b64encode(text.encode()).decode()},
        }
        for index, text in enumerate(lines)
    ]


def totals(code):
    found: Counter[str] = Counter()
    for day in services.click_stats().days(code, DAY, DAY):
        found.update(day.counters)
    return found


def test_each_answered_follow_counts_once_however_its_line_comes(aws, handlers):
    # Given ten follows the edge answered (two bots, a person following again), and lines it did not answer
    answered = [line("promo", offset=index) for index in range(8)]
    answered += [line("promo", BOT, offset=8), line("promo", BOT, offset=9)]
    others = [line("promo", result="Miss"), line("promo", method="HEAD")]
    ingest = handlers["IngestFunction"]
    # When they come shuffled, some twice in one batch, and the batch again later (a redelivery)
    shuffled = answered + others + answered[:3]
    random.Random(7).shuffle(shuffled)
    assert ingest({"Records": records(shuffled)}, None) == {"batchItemFailures": []}
    assert ingest({"Records": records(shuffled)}, None) == {"batchItemFailures": []}
    # Then each follow is counted once, bots apart, the person's later follows as repeats
    counted = totals("promo")
    assert (counted["clicks"], counted["bots"]) == (10, 2)
    assert counted["repeats"] == 7  # the same visitor 8 times within the repeat window
    assert counted[dimension_counter("country", "FR")] == 10


def test_a_record_whose_clicks_were_not_written_is_offered_again_from_its_sequence_number(aws, handlers):
    lines = [line("first"), line("second")]
    real_count = services.click_counter().count

    def failing_second(code, day, parts):
        if code == "second":
            raise StorageUnavailable("throttled")
        return real_count(code, day, parts)

    with mock.patch.object(services.click_counter(), "count", side_effect=failing_second):
        result = handlers["IngestFunction"]({"Records": records(lines)}, None)
    assert result == {"batchItemFailures": [{"itemIdentifier": "2"}]}
    # Kinesis offers the batch again from record 2 on: counted then, and the first never twice
    assert handlers["IngestFunction"]({"Records": records(lines)}, None) == {"batchItemFailures": []}
    assert (totals("first")["clicks"], totals("second")["clicks"]) == (1, 1)
