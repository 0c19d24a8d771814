"""The IP databases as objects of the operator's bucket (moto S3), read after the response and
refreshed without a redeploy: a new object is picked up by a running environment once its check
interval has passed, a corrupt one is logged and the one read before kept, none reads as none."""

import ipaddress
import logging
import tempfile
from pathlib import Path

import boto3
import pytest
from moto import mock_aws

from shortlink import wiring
from shortlink.adapters.s3.ip_database_objects import S3Database
from shortlink.clicks.country_database import CountryDatabase
from shortlink.redirect.click_events import click_from_request
from shortlink.redirect.request import RedirectRequest
from tests.country_databases import write_country_database
from tests.integration.conftest import use_moto_credentials
from tests.network_databases import write_network_database
from tools.operators import ip_databases

BUCKET, KEY = "ip-databases", "countries.mmdb"
GERMAN = ipaddress.ip_address("192.0.2.10")
CHECK_SECONDS = 3600
FIREFOX = "Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:126.0) Gecko/20100101 Firefox/126.0"


class Clock:
    """A monotonic clock the test moves."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def s3(monkeypatch):
    use_moto_credentials(monkeypatch)
    with mock_aws():
        client = boto3.client("s3", region_name="us-east-1")
        client.create_bucket(Bucket=BUCKET)
        yield client


@pytest.fixture(autouse=True)
def temporary_directory(tmp_path, monkeypatch):
    """Lambda's /tmp: this test's own."""
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))


@pytest.fixture
def database():
    clock = Clock()
    return S3Database(BUCKET, KEY, CountryDatabase, CHECK_SECONDS, clock=clock), clock


def upload(s3, path: Path) -> None:
    s3.put_object(Bucket=BUCKET, Key=KEY, Body=path.read_bytes())


def test_a_new_object_is_picked_up_after_the_check_interval_without_a_restart(s3, database, tmp_path, caplog):
    source, clock = database
    # Given no object yet: none, logged, never an error
    with caplog.at_level(logging.WARNING, "shortlink.clicks"):
        assert source.current() is None
    assert f"IP database s3://{BUCKET}/{KEY} is absent: read as none" in caplog.text
    # When the operator uploads one, the environment reads it at its next check
    upload(s3, write_country_database(tmp_path / "v1.mmdb"))
    clock.now += CHECK_SECONDS
    first = source.current()
    assert first is not None
    assert first.country(GERMAN) == "DE"
    assert (tmp_path / "tmp" / f"ip-database-{KEY}").exists()  # kept in /tmp
    # And a database that moved Germany's range to Japan replaces it, but only once the interval passed
    upload(s3, write_country_database(tmp_path / "v2.mmdb", {"192.0.2.0/24": "JP"}))
    clock.now += CHECK_SECONDS - 1
    assert source.current() is first
    clock.now += 1
    assert source.current().country(GERMAN) == "JP"


def test_an_unchanged_object_is_not_fetched_again(s3, database, tmp_path):
    source, clock = database
    upload(s3, write_country_database(tmp_path / "v1.mmdb"))
    first = source.current()
    (tmp_path / "tmp" / f"ip-database-{KEY}").unlink()  # a fetch would write it again
    clock.now += CHECK_SECONDS
    assert source.current() is first
    assert not (tmp_path / "tmp" / f"ip-database-{KEY}").exists()


def test_a_corrupt_object_keeps_the_database_read_before_and_logs_a_clear_error(s3, database, tmp_path, caplog):
    source, clock = database
    upload(s3, write_country_database(tmp_path / "v1.mmdb"))
    first = source.current()
    s3.put_object(Bucket=BUCKET, Key=KEY, Body=b"<html>Access denied</html>")
    clock.now += CHECK_SECONDS
    with caplog.at_level(logging.ERROR, "shortlink.clicks"):
        assert source.current() is first
    assert f"IP database s3://{BUCKET}/{KEY} (ETag" in caplog.text
    assert "is not a readable database" in caplog.text
    assert "the one read before is kept" in caplog.text
    assert [path.name for path in (tmp_path / "tmp").iterdir()] == [f"ip-database-{KEY}"]  # no half-written copy
    assert first.country(GERMAN) == "DE"


def test_an_object_removed_reads_as_none(s3, database, tmp_path, caplog):
    source, clock = database
    upload(s3, write_country_database(tmp_path / "v1.mmdb"))
    assert source.current() is not None
    s3.delete_object(Bucket=BUCKET, Key=KEY)
    s3.delete_bucket(Bucket=BUCKET)
    clock.now += CHECK_SECONDS
    with caplog.at_level(logging.WARNING, "shortlink.clicks"):
        assert source.current() is None  # the operator removed it: none, as without one
    assert "is absent: read as none" in caplog.text


def test_a_click_reads_its_country_and_network_from_the_bucket(s3, tmp_path, monkeypatch):
    # Given the redirect told the bucket and both keys, no file of its own
    write_network_database(tmp_path / "n.mmdb")
    s3.put_object(Bucket=BUCKET, Key="networks.mmdb", Body=(tmp_path / "n.mmdb").read_bytes())
    upload(s3, write_country_database(tmp_path / "c.mmdb"))
    for name, value in {
        "IP_DATABASE_BUCKET": BUCKET,
        "COUNTRY_DATABASE_KEY": KEY,
        "NETWORK_DATABASE_KEY": "networks.mmdb",
    }.items():
        monkeypatch.setenv(name, value)
    wiring.reset()
    try:
        event = {"headers": {"user-agent": FIREFOX}, "requestContext": {"http": {"sourceIp": str(GERMAN)}}}
        followed = RedirectRequest(event, wiring.request_reading())
        reading = wiring.click_reading()
        click = click_from_request("c1", "abc", 0.0, followed, "https://example.com/", None, b"salt", reading)
    finally:
        wiring.reset()
    # Then its country is the bucket's database's, and its network (Microsoft's) makes a browser a scanner
    assert (click.country, click.bot) == ("DE", True)
    monkeypatch.setenv("SCANNER_NETWORKS", "off")
    wiring.reset()
    try:
        reading = wiring.click_reading()
        click = click_from_request("c2", "abc", 0.0, followed, "https://example.com/", None, b"salt", reading)
    finally:
        wiring.reset()
    assert (click.country, click.bot) == ("DE", False)


def test_the_operator_command_uploads_a_checked_database_that_a_running_environment_then_takes(
    s3, database, tmp_path, capsys
):
    # Given an environment reading the country object, and a database of the wrong kind and a corrupt file
    source, clock = database
    upload(s3, write_country_database(tmp_path / "v1.mmdb"))
    assert source.current().country(GERMAN) == "DE"
    (tmp_path / "broken.mmdb").write_bytes(b"not a database")
    for kind, path, problem in (
        ("country", write_network_database(tmp_path / "n.mmdb"), "is a GeoLite2-ASN database, not a country database"),
        ("country", tmp_path / "broken.mmdb", "is not a readable .mmdb database"),
    ):
        with pytest.raises(SystemExit, match=problem):
            ip_databases.main([kind, str(path), "--bucket", BUCKET])
    # When the operator uploads next month's database, the environment takes it at its next check
    newer = write_country_database(tmp_path / "v2.mmdb", {"192.0.2.0/24": "JP"})
    ip_databases.main(["country", str(newer), "--bucket", BUCKET])
    assert f"to s3://{BUCKET}/{KEY}, ETag" in capsys.readouterr().out
    clock.now += CHECK_SECONDS
    assert source.current().country(GERMAN) == "JP"


def test_the_operator_command_finds_the_bucket_and_key_of_a_deployed_stack():
    class Stacks:
        def describe_stacks(self, StackName: str) -> dict[str, object]:  # boto3's name
            parameters = [{"ParameterKey": "IpDatabaseBucket", "ParameterValue": BUCKET}]
            return {"Stacks": [{"StackName": StackName, "Parameters": parameters}]}

    assert ip_databases.stack_location(Stacks(), "shortlink", "network") == (BUCKET, "networks.mmdb")
