"""Every import format against malformed, oversized, deeply nested and adversarial files: a
clear UnreadableFile or per-record problems, never another error, and a read linear in the
file's size (issue 28 items 3, 7 and class c)."""

import json
import math
import time
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shortlink.transfer.formats import FORMATS, Record, TooManyRecords, UnreadableFile, read

MIB = 1024 * 1024
YOURLS_HEAD = "INSERT INTO `yourls_url` (`keyword`, `url`, `title`, `timestamp`, `ip`, `clicks`) VALUES "


def read_or_refuse(text: str, file_format: str) -> list[Record] | None:
    """The records, or None when the file is refused as UnreadableFile (nothing else may escape)."""
    try:
        return read(text, file_format)  # type: ignore[arg-type]
    except UnreadableFile:
        return None


@pytest.mark.parametrize("file_format", ["auto", *FORMATS])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    text=st.text(
        alphabet=st.sampled_from(list("\"'`,;()[]{}\\\n\r\t #-*/=:%\x00ÿ٣\U0001d7d8 aINSERTyourls_urlVALUES0123"))
    )
)
def test_any_text_is_records_or_a_clear_refusal(file_format, text):
    read_or_refuse(text, file_format)


@pytest.mark.parametrize("file_format", ["auto", *FORMATS])
@settings(max_examples=40, deadline=None)
@given(
    document=st.recursive(
        st.none() | st.booleans() | st.floats() | st.integers() | st.text(max_size=8),
        lambda children: (
            st.lists(children, max_size=4)
            | st.dictionaries(
                st.sampled_from(
                    [
                        "url",
                        "target",
                        "links",
                        "data",
                        "expire_in",
                        "max_clicks",
                        "password_hash",
                        "slug",
                        "address",
                        "tags",
                    ]
                ),
                children,
                max_size=4,
            )
        ),
        max_leaves=20,
    )
)
def test_any_json_document_is_records_or_a_clear_refusal(file_format, document):
    read_or_refuse(json.dumps(document), file_format)


@pytest.mark.parametrize("file_format", ["auto", "json", "kutt"])
@pytest.mark.parametrize("opening", ["[", '{"links":', '{"data":', '{"a":['])
def test_deeply_nested_json_is_refused(file_format, opening):
    text = opening * 200_000
    assert read_or_refuse(text, file_format) is None


@pytest.mark.parametrize("file_format", ["csv", "bitly", "yourls", "shlink"])
def test_a_csv_cell_past_the_readers_limit_is_refused(file_format):
    header = {"csv": "url", "bitly": "long_url", "yourls": "keyword", "shlink": "longUrl"}[file_format]
    assert read_or_refuse(f'{header}\n"{"x" * 200_000}"\n', file_format) is None


@pytest.mark.parametrize(
    "expire_in",
    [1e20, math.nan, math.inf, -math.inf, 253402300800000, -62135596800001, -1, 10**400, 1.7976931348623157e308],
)
def test_a_kutt_expiry_out_of_range_is_the_records_problem(expire_in):
    text = json.dumps({"data": [{"target": "https://example.com/", "address": "k", "expire_in": expire_in}]})
    (record,) = read(text, "kutt")
    assert len(record.problems) == 1
    assert record.problems[0].startswith("expire_in: ")
    assert "expires_at" not in record.fields


def test_a_kutt_expiry_in_range_is_read_as_an_iso_time():
    text = json.dumps({"data": [{"target": "https://example.com/", "expire_in": 1_800_000_000_000}]})
    (record,) = read(text, "kutt")
    assert (record.fields["expires_at"], record.problems) == ("2027-01-15T08:00:00+00:00", ())


ROW = "('{code}','https://example.com/{code}','T','2023-01-05 12:00:00','192.0.2.1',1)"


@pytest.mark.parametrize(
    "comment",
    [
        "-- {insert}\n",
        "--\t{insert}\n",
        "# {insert}\n",
        "/* {insert} */\n",
        "/*!40000 {insert} */;\n",
        "/* unclosed {insert}",
    ],
)
def test_a_yourls_dump_s_commented_out_insert_is_not_imported(comment):
    commented = comment.format(insert=YOURLS_HEAD + ROW.format(code="hidden") + ";")
    dump = commented + YOURLS_HEAD + ROW.format(code="shown") + ";\n"
    if "unclosed" in comment:
        dump = YOURLS_HEAD + ROW.format(code="shown") + ";\n" + commented
    records = read(dump, "yourls")
    assert [record.fields["slug"] for record in records] == ["shown"]


def test_an_insert_inside_quoted_text_is_not_imported():
    hidden = YOURLS_HEAD.replace("`", "") + ROW.format(code="hidden")
    quoted = hidden.replace("'", "''")
    note = f"INSERT INTO `yourls_options` VALUES (1,'note','{quoted}');\n"  # noqa: S608 - a file's text, never run
    dump = note + YOURLS_HEAD + ROW.format(code="shown") + ";\n"
    assert [record.fields["slug"] for record in read(dump, "yourls")] == ["shown"]


def test_a_dump_that_is_nothing_but_comments_is_no_dump():
    with pytest.raises(UnreadableFile):
        read("-- " + YOURLS_HEAD + ROW.format(code="x") + "\n", "auto")


def test_yourls_lines_are_counted_once_and_right():
    dump = "-- head\n\n" + YOURLS_HEAD + ROW.format(code="a") + ",\n" + ROW.format(code="b") + ";\n"
    assert [record.line for record in read(dump, "yourls")] == [3, 4]


def test_the_record_limit_is_checked_while_reading():
    dump = YOURLS_HEAD + ",\n".join(ROW.format(code=f"c{n}") for n in range(2_000)) + ";\n"
    with pytest.raises(TooManyRecords):
        read(dump, "yourls", limit=500)
    assert len(read(dump, "yourls", limit=2_000)) == 2_000


def _filled(unit: Callable[[int], str], size: int, head: str = "", tail: str = "") -> str:
    parts, length, index = [head], len(head), 0
    while length < size:
        part = unit(index)
        parts.append(part)
        length += len(part)
        index += 1
    return "".join(parts) + tail


# Files made to be slow: many small rows, and the shapes a backtracking or rescanning reader
# pays for in each match (an INSERT whose column list never closes, quotes that never end, ...).
ADVERSARIAL: dict[str, Callable[[int], str]] = {
    "yourls rows": lambda size: _filled(lambda n: ROW.format(code=f"c{n}") + ",\n", size, YOURLS_HEAD, "('z','u',1);"),
    "yourls open column lists": lambda size: _filled(lambda _: "INSERT INTO t (", size),
    "yourls escaped quotes": lambda size: _filled(lambda _: "'a\\'", size, YOURLS_HEAD + "("),
    "yourls doubled quotes": lambda size: _filled(lambda _: "''", size, YOURLS_HEAD + "('"),
    "yourls open comments": lambda size: _filled(lambda _: "/*", size, YOURLS_HEAD + "('a','b');"),
    "yourls dashes": lambda size: _filled(lambda _: "-", size, YOURLS_HEAD + "('a','b');"),
    "yourls inserts": lambda size: _filled(lambda _: "INSERT ", size, YOURLS_HEAD + "('a','b');"),
    "csv rows": lambda size: _filled(lambda n: f"https://example.com/{n},t{n},a|b\n", size, "url,title,tags\n"),
    "csv quotes": lambda size: _filled(lambda _: '"",', size, "url\n"),
    "json links": lambda size: "[" + _filled(lambda n: f'{{"url":"https://example.com/{n}"}},', size) + "{}]",
    "kutt links": lambda size: '{"data":[' + _filled(lambda n: f'{{"target":"x","expire_in":{n}}},', size) + "{}]}",
}


def _seconds(text: str) -> float:
    best = math.inf
    for _ in range(3):  # the best of three: a busy machine only ever adds time
        started = time.perf_counter()
        read_or_refuse(text, "auto")
        best = min(best, time.perf_counter() - started)
    return best


@pytest.mark.parametrize("name", list(ADVERSARIAL))
def test_every_format_reads_a_mib_in_linear_time(name):
    small, large = ADVERSARIAL[name](MIB // 8), ADVERSARIAL[name](MIB)
    # Eight times the size in about eight times the time (a ratio, which a loaded machine slows
    # on both sides, not a number of seconds, which it would fail): a quadratic reader takes 64 times, so 32
    # tells them apart with room for a loaded machine; the floor keeps timer noise on tiny reads
    # from deciding. A burst of load can land on one side only: a quadratic reader is 64 times
    # slower at every try, so one try of three under 32 shows a linear one.
    ratios = []
    for _ in range(3):
        small_seconds, large_seconds = _seconds(small), _seconds(large)
        ratios.append(large_seconds / max(small_seconds, 0.02))
        if ratios[-1] < 32:
            break
    assert min(ratios) < 32, (name, ratios)


@pytest.mark.parametrize(
    ("text", "file_format"),
    [
        ('{"links": [{"url": "https://example.com/a", "has_password": true}]}', "json"),
        ("url,has_password\nhttps://example.com/a,true\n", "csv"),
    ],
)
def test_a_password_the_file_does_not_carry_fails_its_record_instead_of_opening_the_link(text, file_format):
    # Given an export that says a link has a password but carries no hash (CSV, or JSON without
    # include=password_hash)
    (record,) = read(text, file_format)
    # Then that record fails, naming has_password, and no field of it says "no password"
    assert len(record.problems) == 1
    assert record.problems[0].startswith("has_password: ")
    assert "has_password" not in record.fields


def test_a_password_the_file_carries_imports_as_its_hash():
    text = '{"links": [{"url": "https://example.com/a", "has_password": true, "password_hash": "x"}]}'
    (record,) = read(text, "json")
    assert (record.problems, record.fields["password_hash"]) == ((), "x")
