"""The click lake in the templates: nothing of it by default; with EnableClickLake, the stream
ingest may put to, the table of the rows' columns partitioned by day, the named queries of
tools.operators.click_lake, retention and the per-query scan limit as parameters."""

from shortlink.clicks.lake_rows import COLUMNS, PARTITION, ROWS_PER_RECORD
from tests.integration.test_template import ROOT, Rendered
from tools.operators.click_lake.queries import NAMED_QUERIES

ON = {"EnableClickLake": "true", "ClickLakeRetentionDays": "90", "ClickLakeQueryBytesLimit": "1000000000"}
LAKE_TYPES = {"AWS::S3::Bucket", "AWS::KinesisFirehose::DeliveryStream", "AWS::Glue::Table", "AWS::Athena::WorkGroup"}


def ingest_policy(resources):
    return [
        statement
        for policy in resources["IngestFunction"]["Properties"]["Policies"]
        for statement in policy["Statement"]
    ]


def test_without_the_lake_nothing_of_it_exists_and_ingest_sends_nothing():
    resources = Rendered({}).resources()
    assert not {resource["Type"] for resource in resources.values()} & LAKE_TYPES
    assert "CLICK_LAKE_STREAM" not in resources["IngestFunction"]["Properties"]["Environment"]["Variables"]
    assert not [statement for statement in ingest_policy(resources) if "firehose" in str(statement["Action"])]


def test_the_lake_holds_the_rows_columns_by_day_and_ingest_may_only_put_to_its_stream():
    resources = Rendered(ON).resources()
    table = resources["ClicksTable"]["Properties"]["TableInput"]
    assert [(column["Name"], column["Type"]) for column in table["StorageDescriptor"]["Columns"]] == list(COLUMNS)
    assert table["PartitionKeys"] == [{"Name": PARTITION, "Type": "string"}]
    assert table["Parameters"]["projection.enabled"] == "true"
    # Firehose splits packed records (at most 500 rows each) and writes each click's day apart
    destination = resources["ClickLakeDeliveryStream"]["Properties"]["ExtendedS3DestinationConfiguration"]
    assert destination["Prefix"] == "clicks/day=!{partitionKeyFromQuery:day}/"
    processors = {
        processor["Type"]: processor["Parameters"] for processor in destination["ProcessingConfiguration"]["Processors"]
    }
    assert processors["RecordDeAggregation"] == [{"ParameterName": "SubRecordType", "ParameterValue": "JSON"}]
    assert ROWS_PER_RECORD <= 500
    assert destination["DataFormatConversionConfiguration"]["OutputFormatConfiguration"]["Serializer"] == {
        "ParquetSerDe": {"Compression": "SNAPPY"}
    }
    ingest = resources["IngestFunction"]["Properties"]
    assert ingest["Environment"]["Variables"]["CLICK_LAKE_STREAM"] == {
        "Fn::GetAtt": ["ClickLake", "Outputs.StreamName"]
    }
    [put] = [statement for statement in ingest_policy(resources) if "firehose" in str(statement["Action"])]
    assert (put["Action"], put["Resource"]) == (
        "firehose:PutRecordBatch",
        {"Fn::GetAtt": ["ClickLake", "Outputs.StreamArn"]},
    )


def test_retention_the_scan_limit_and_the_named_queries_are_as_documented():
    resources = Rendered(ON).resources()
    bucket = resources["ClickLakeBucket"]["Properties"]
    assert all(bucket["PublicAccessBlockConfiguration"].values())
    rules = {rule["Id"]: rule for rule in bucket["LifecycleConfiguration"]["Rules"]}
    assert (rules["clicks-retention"]["Prefix"], rules["clicks-retention"]["ExpirationInDays"]) == ("clicks/", "90")
    workgroup = resources["ClickLakeWorkGroup"]["Properties"]["WorkGroupConfiguration"]
    assert (workgroup["BytesScannedCutoffPerQuery"], workgroup["EnforceWorkGroupConfiguration"]) == ("1000000000", True)
    queries = {
        resource["Properties"]["Name"]["Fn::Sub"].removeprefix("${StackName}-"): resource["Properties"]["QueryString"]
        for resource in resources.values()
        if resource["Type"] == "AWS::Athena::NamedQuery"
    }
    assert queries == {query.name: query.sql for query in NAMED_QUERIES}
    page = (ROOT / "docs" / "click-lake.md").read_text()
    assert all(f"```sql\n{query.sql}\n```" in page for query in NAMED_QUERIES)
