"""Each import format's reader on its sample file (tests/data/import/, written for these tests)."""

from pathlib import Path

import pytest

from shortlink.transfer.formats import UnreadableFile, detect, read, tags_of

SAMPLES = Path(__file__).resolve().parents[1] / "data" / "import"


def sample(name: str) -> str:
    return (SAMPLES / name).read_text()


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("links.csv", "csv"),
        ("export.json", "json"),
        ("bitly.csv", "bitly"),
        ("yourls.sql", "yourls"),
        ("yourls.csv", "yourls"),
        ("shlink.csv", "shlink"),
        ("kutt.json", "kutt"),
    ],
)
def test_each_sample_is_recognised(name, expected):
    assert detect(sample(name)) == expected


def test_our_csv_keeps_quoted_commas_tags_and_lines():
    records = read(sample("links.csv"), "csv")
    assert [record.line for record in records] == [2, 3, 4, 5]
    assert records[0].fields == {
        "url": "https://example.com/spring",
        "slug": "spring-2027",
        "title": "Spring, the sale",
        "tags": ["promo", "spring"],
        "expires_at": "2099-03-01T00:00:00Z",
    }
    # Empty cells say nothing: no slug, no expiry.
    assert records[1].fields == {
        "url": "https://example.com/no-slug",
        "title": "A page without a slug",
        "tags": ["docs"],
    }


def test_bitly_codes_come_from_the_bitlink_or_the_custom_one():
    records = read(sample("bitly.csv"), "bitly")
    assert [record.fields.get("slug") for record in records] == ["4aXyZ01", "summer-promo", "4cLmN03"]
    assert records[0].fields["url"] == "https://example.org/articles/42?utm_source=bitly"
    assert records[0].fields["tags"] == ["Blog-Posts", "news"]


def test_yourls_sql_reads_only_the_url_table_with_its_escapes():
    records = read(sample("yourls.sql"), "yourls")
    assert [(record.line, record.fields["slug"]) for record in records] == [(12, "yt-1"), (13, "docs-2"), (14, "bad-3")]
    assert records[0].fields["title"] == "It's a video"
    assert records[1].fields["title"] == "Docs, 'quoted'"
    assert "title" not in records[2].fields  # NULL


def test_yourls_csv():
    records = read(sample("yourls.csv"))
    assert [(record.fields["slug"], record.fields["url"]) for record in records] == [
        ("yc-1", "https://example.net/from-csv"),
        ("yc-2", "https://example.net/second"),
    ]


def test_shlink_codes_come_from_the_short_code_or_the_short_url():
    records = read(sample("shlink.csv"))
    assert [record.fields["slug"] for record in records] == ["sh-one", "sh-two"]
    assert records[0].fields["tags"] == ["marketing", "Q1-2024"]


def test_kutt_addresses_targets_and_expiries():
    records = read(sample("kutt.json"))
    assert records[0].fields == {
        "url": "https://example.com/kutt/one",
        "slug": "kt-one",
        "title": "Kutt one",
        "expires_at": "2099-01-01T00:00:00.000Z",
    }
    assert records[1].fields == {"url": "https://example.com/kutt/two", "slug": "kt-two"}


def test_our_json_export_keeps_every_field_an_import_restores():
    records = read(sample("export.json"))
    assert [record.line for record in records] == [1, 2, 3]
    launch = records[0].fields
    assert launch["slug"] == "launch"
    assert launch["password_hash"].startswith("pbkdf2_sha256$600000$")
    assert launch["rules"] == {"routes": [{"countries": ["FR"], "url": "https://example.com/fr"}]}
    assert not {"short_url", "created_at", "code"} & set(launch)
    assert records[2].fields["deleted_at"] == "2026-11-20T00:00:00Z"


def test_tags_are_made_into_ours():
    assert tags_of("Spring Sale|news, news;x" + "y" * 40) == ["Spring-Sale", "news", "x" + "y" * 31]
    assert tags_of(" | ") == []


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("just some words\n", "not recognised"),
        ("{not json", "not JSON"),
        ("", "not recognised"),
    ],
)
def test_unreadable_files_say_why(text, message):
    with pytest.raises(UnreadableFile, match=message):
        read(text)


def test_a_named_format_that_does_not_fit_says_so():
    with pytest.raises(UnreadableFile, match="JSON"):
        read(sample("links.csv"), "kutt")
    with pytest.raises(UnreadableFile, match="url column"):
        read(sample("bitly.csv").replace("long_url", "destination"), "csv")


def test_a_file_sent_as_json_csv_or_sql_must_read_as_one():
    assert read(sample("kutt.json"), media_type="application/json; charset=utf-8")
    assert read(sample("yourls.sql"), media_type="application/sql")
    assert read(sample("links.csv"), media_type="text/plain")  # says nothing of the kind
    for name, media_type in (
        ("links.csv", "application/json"),
        ("kutt.json", "text/csv"),
        ("yourls.csv", "application/sql"),
    ):
        with pytest.raises(UnreadableFile, match=f"sent as {media_type} but does not read as"):
            read(sample(name), media_type=media_type)
    with pytest.raises(UnreadableFile, match="does not read as CSV"):
        read("[null, null]", "json", "text/csv")
