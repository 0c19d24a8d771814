"""Athena adapter of the click lake's raw exports: a CSV export is a SELECT whose answer Athena
writes as one CSV file where the workgroup keeps results; a Parquet export an UNLOAD into
`exports/<token>/` of the lake's bucket. The export's id is the query's: its state is Athena's,
and whose it is the query itself says (the account is its third parameter), so no table keeps
jobs. Done, its files are offered as presigned GETs of the function's own role, LINK_SECONDS long.
"""

import re
import uuid
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from shortlink.clicks.lake_exports import (
    CSV_SQL,
    LINK_SECONDS,
    ExportJob,
    ExportRequest,
    ExportState,
    parquet_sql,
)
from shortlink.errors import StorageUnavailable

STATES: dict[str, ExportState] = {
    "QUEUED": "running",
    "RUNNING": "running",
    "SUCCEEDED": "succeeded",
    "FAILED": "failed",
    "CANCELLED": "failed",
}
EXPORTS_PREFIX = "exports/"
UNLOADED_TO = re.compile(r" TO 's3://(?P<bucket>[^/']+)/(?P<prefix>exports/[0-9a-f]{32}/)' ")


def literal(text: str) -> str:
    """`text` as the SQL string literal Athena puts in place of a `?` (its ExecutionParameters are SQL)."""
    return "'" + text.replace("'", "''") + "'"


class AthenaLakeExports:
    """The lake's exports, run by Athena in the lake's workgroup."""

    def __init__(self, workgroup: str, database: str, bucket: str, athena: Any = None, s3: Any = None) -> None:
        self._workgroup, self._database, self._bucket = workgroup, database, bucket
        self._clients = {"athena": athena, "s3": s3}

    def _client(self, service: str) -> Any:
        if self._clients[service] is None:
            from shortlink.adapters.botocore_clients import botocore_client

            # The links are signed with SigV4, which every region takes (botocore may sign S3's with SigV2).
            signature = "s3v4" if service == "s3" else None
            self._clients[service] = botocore_client(service, signature_version=signature)
        return self._clients[service]

    def start(self, owner: str, request: ExportRequest) -> ExportJob:
        """Start the query that writes `owner`'s rows of the request's days as its format."""
        if request.form == "csv":
            sql = CSV_SQL
        else:
            sql = parquet_sql(f"s3://{self._bucket}/{EXPORTS_PREFIX}{uuid.uuid4().hex}/")
        try:
            export_id = self._client("athena").start_query_execution(
                QueryString=sql,
                QueryExecutionContext={"Database": self._database},
                WorkGroup=self._workgroup,
                ExecutionParameters=[literal(request.first), literal(request.last), literal(owner)],
            )["QueryExecutionId"]
        except (BotoCoreError, ClientError) as error:
            raise StorageUnavailable(f"Athena refused the export: {error}") from error
        return ExportJob(str(export_id), request, "running")

    def job(self, owner: str, export_id: str) -> ExportJob | None:
        """The export as Athena tells it, if it is one of `owner`'s in this workgroup."""
        try:
            query = self._client("athena").get_query_execution(QueryExecutionId=export_id)["QueryExecution"]
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") == "InvalidRequestException":  # no such query
                return None
            raise StorageUnavailable(f"Athena could not tell the export's state: {error}") from error
        except BotoCoreError as error:
            raise StorageUnavailable(f"Athena could not tell the export's state: {error}") from error
        parameters = query.get("ExecutionParameters", [])
        unloaded = UNLOADED_TO.search(query.get("Query", ""))
        ours = query.get("WorkGroup") == self._workgroup and len(parameters) == 3 and parameters[2] == literal(owner)
        if not ours or (query.get("Query") != CSV_SQL and unloaded is None):
            return None
        first, last = (parameter.strip("'") for parameter in parameters[:2])
        request = ExportRequest(first, last, "csv" if unloaded is None else "parquet")
        status = query["Status"]
        state = STATES.get(status["State"], "running")
        if state == "failed":
            return ExportJob(export_id, request, state, reason=status.get("StateChangeReason", "the query failed"))
        if state == "running":
            return ExportJob(export_id, request, state)
        if unloaded is None:
            location = query["ResultConfiguration"]["OutputLocation"]
            bucket, key = location.removeprefix("s3://").split("/", 1)
            files = [(bucket, key)]
        else:
            files = self._unloaded(unloaded["bucket"], unloaded["prefix"])
        name = f"clicks-{first}-{last}"
        links = tuple(self._link(bucket, key, name, n, len(files)) for n, (bucket, key) in enumerate(files))
        return ExportJob(export_id, request, state, links)

    def _unloaded(self, bucket: str, prefix: str) -> list[tuple[str, str]]:
        try:
            pages = self._client("s3").get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix)
            return sorted((bucket, item["Key"]) for page in pages for item in page.get("Contents", []))
        except (BotoCoreError, ClientError) as error:
            raise StorageUnavailable(f"the export's files could not be listed: {error}") from error

    def _link(self, bucket: str, key: str, name: str, n: int, count: int) -> str:
        """A presigned GET of one file, saved as clicks-<first>-<last>[-n].<csv|parquet>."""
        extension = "csv" if key.endswith(".csv") else "parquet"
        filename = f"{name}.{extension}" if count == 1 else f"{name}-{n + 1}.{extension}"
        return str(
            self._client("s3").generate_presigned_url(
                "get_object",
                Params={
                    "Bucket": bucket,
                    "Key": key,
                    "ResponseContentDisposition": f'attachment; filename="{filename}"',
                },
                ExpiresIn=LINK_SECONDS,
            )
        )
