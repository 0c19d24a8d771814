"""python -m tools.import_links: how it splits a file for the API and reports each link."""

from shortlink.transfer.formats import Record
from tools import import_links as command


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
