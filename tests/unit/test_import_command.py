"""python -m tools.operators.import_links: how it splits a file for the API and reports each link."""

import json

from shortlink.transfer.formats import Record, read
from tools.operators import import_links as command
from tools.operators.api_client import Answer, Api


def test_a_large_file_goes_in_parts_of_at_most_500_links_and_1_mib():
    numbered = [(n, Record(n + 2, {"url": f"https://example.com/{n}"})) for n in range(1200)]
    assert [len(part) for part in command.parts(numbered)] == [500, 500, 200]
    wide = [(n, Record(n + 2, {"url": "https://example.com/", "title": "x" * 200_000})) for n in range(12)]
    sizes = [len(part) for part in command.parts(wide)]
    assert sizes == [5, 5, 2]
    assert [index for part in command.parts(wide) for index, _ in part] == list(range(12))


def test_the_table_has_a_row_per_link_with_its_reason():
    lines = command.table(
        [
            {"line": 2, "status": "created", "code": "guide"},
            {
                "line": 10,
                "status": "failed",
                "code": "ftp-file",
                "message": "url must be an absolute http or https URL",
            },
        ]
    ).splitlines()
    assert lines == [
        "line  status   code      reason",
        "2     created  guide",
        "10    failed   ftp-file  url must be an absolute http or https URL",
    ]


class RecordingApi(Api):
    """The API as the command sees it: every import part answered `created`, each part kept."""

    def __init__(self) -> None:
        self.sent: list[list[dict[str, object]]] = []

    def request(self, method: str, path: str, body: bytes | None = None, content_type: str | None = None) -> Answer:
        links = json.loads(body or b"{}")["links"]
        self.sent.append(links)
        results = [{"status": "created", "code": f"c{n}"} for n, _ in enumerate(links)]
        return Answer(200, json.dumps({"results": results}).encode(), {})


def test_a_record_the_file_makes_invalid_fails_unsent_with_its_problem():
    records = read("url,max_clicks\nhttps://example.com/a,5\nhttps://example.com/b,\u0663\n", "csv")
    api = RecordingApi()
    results = command.import_records(api, records, wait=False)
    assert api.sent == [[{"url": "https://example.com/a", "max_clicks": 5}]]
    assert results[0] == {"status": "created", "code": "c0", "line": 2}
    assert results[1] == {
        "line": 3,
        "status": "failed",
        "error": "invalid_request",
        "message": "max_clicks: must be a whole number in the digits 0-9",
    }
