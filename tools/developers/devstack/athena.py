"""A local Amazon Athena for the click lake (`CLICK_LAKE=1 make dev`): the Athena adapters' calls
(the raw exports' and the daily check's) run their SQL with DuckDB over the local S3's Parquet, and
write what Athena writes into the local S3.

What it does as Athena does: ExecutionParameters put in place of the `?`s as SQL literals, in
order; the query runs in the background (QUEUED, RUNNING, then SUCCEEDED or FAILED with its
reason); a SELECT's answer as one CSV file, every cell quoted, at `athena-results/<id>.csv` (the
workgroup's result location); an `UNLOAD (...) TO 's3://…/' WITH (format = 'PARQUET')` as Parquet
files under that prefix; GetQueryResults as the CSV's rows, the header first; an unknown query id
answered InvalidRequestException. What it does not: Trino's SQL dialect (the queries are written in
what both accept), the workgroup's bytes-scanned limit, IAM, paging of GetQueryResults. Like partition projection, it
reads only the days a query's `day BETWEEN '…' AND '…'` names.
"""

import csv
import io
import re
import tempfile
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tools.operators.click_lake.parquet import lake_connection
from tools.operators.click_lake.store import PREFIX, LakeBucket, days_between, partition_prefix

RESULTS_PREFIX = "athena-results/"
DAYS = re.compile(r"day BETWEEN '(?P<first>[0-9]{4}-[0-9]{2}-[0-9]{2})' AND '(?P<last>[0-9]{4}-[0-9]{2}-[0-9]{2})'")
UNLOAD = re.compile(
    r"UNLOAD \((?P<query>.*)\) TO 's3://(?P<bucket>[^/']+)/(?P<prefix>[^']*)' WITH \(format = 'PARQUET'\)", re.S
)


class QueryRefused(Exception):
    """A request Athena answers InvalidRequestException."""


def with_parameters(sql: str, parameters: list[str]) -> str:
    """The query with each `?` replaced by its parameter, in order (Athena's parameters are SQL literals)."""
    parts = sql.split("?")
    if len(parts) != len(parameters) + 1:
        raise QueryRefused(f"the query has {len(parts) - 1} parameters, {len(parameters)} were given")
    return parts[0] + "".join(parameter + part for parameter, part in zip(parameters, parts[1:], strict=True))


class LocalAthena:
    """One workgroup whose results go to the lake's bucket."""

    def __init__(self, s3: Any, bucket: str, workgroup: str) -> None:
        self.s3, self.bucket, self.workgroup = s3, bucket, workgroup
        self._queries: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []
        self._running = threading.Event()  # cleared: queries stay QUEUED, as in a busy workgroup
        self._running.set()

    def start(self, request: dict[str, Any]) -> str:
        """StartQueryExecution: the query's id; it runs in the background."""
        if request.get("WorkGroup") != self.workgroup:
            raise QueryRefused(f"no workgroup {request.get('WorkGroup')!r}")
        query_id = str(uuid.uuid4())
        execution = {
            "QueryExecutionId": query_id,
            "Query": request["QueryString"],
            "StatementType": "DML",
            "WorkGroup": self.workgroup,
            "ExecutionParameters": list(request.get("ExecutionParameters", [])),
            "QueryExecutionContext": request.get("QueryExecutionContext", {}),
            "ResultConfiguration": {"OutputLocation": f"s3://{self.bucket}/{RESULTS_PREFIX}{query_id}.csv"},
            "Status": {"State": "QUEUED", "SubmissionDateTime": datetime.now(UTC).timestamp()},
        }
        with self._lock:
            self._queries[query_id] = execution
        thread = threading.Thread(target=self._run, args=(execution,), daemon=True)
        self._threads.append(thread)
        thread.start()
        return query_id

    def execution(self, query_id: str) -> dict[str, Any]:
        """GetQueryExecution's QueryExecution."""
        with self._lock:
            if query_id not in self._queries:
                raise QueryRefused(f"QueryExecution {query_id} was not found")
            return {**self._queries[query_id], "Status": dict(self._queries[query_id]["Status"])}

    def results(self, query_id: str) -> dict[str, Any]:
        """GetQueryResults of a SELECT that succeeded: its CSV's rows, the header first."""
        execution = self.execution(query_id)
        if execution["Status"]["State"] != "SUCCEEDED" or UNLOAD.match(execution["Query"]):
            raise QueryRefused(f"query {query_id} has no results to read")
        key = execution["ResultConfiguration"]["OutputLocation"].removeprefix(f"s3://{self.bucket}/")
        text = self.s3.get_object(Bucket=self.bucket, Key=key)["Body"].read().decode()
        rows = [{"Data": [{"VarCharValue": cell} for cell in row]} for row in csv.reader(io.StringIO(text))]
        columns = [{"Name": name, "Type": "varchar"} for name in next(csv.reader(io.StringIO(text)), [])]
        return {"ResultSet": {"Rows": rows, "ResultSetMetadata": {"ColumnInfo": columns}}, "UpdateCount": 0}

    def _status(self, execution: dict[str, Any], state: str, reason: str = "") -> None:
        with self._lock:
            execution["Status"] = {**execution["Status"], "State": state}
            if reason:
                execution["Status"]["StateChangeReason"] = reason

    @contextmanager
    def queueing(self) -> Iterator[None]:
        """Queries started within the block wait in QUEUED until it ends."""
        self._running.clear()
        try:
            yield
        finally:
            self._running.set()

    def _run(self, execution: dict[str, Any]) -> None:
        self._running.wait()
        self._status(execution, "RUNNING")
        try:
            sql = with_parameters(execution["Query"], execution["ExecutionParameters"])
            with tempfile.TemporaryDirectory() as folder:
                database = lake_connection(self._download(sql, Path(folder)))
                written = Path(folder) / "written"
                unload = UNLOAD.fullmatch(sql)
                if unload is not None:
                    database.execute(f"COPY ({unload['query']}) TO '{written}' (FORMAT parquet, COMPRESSION snappy)")
                    key = f"{unload['prefix']}{execution['QueryExecutionId']}_00000"
                    self.s3.upload_file(str(written), unload["bucket"], key)
                else:
                    database.execute(f"COPY ({sql}) TO '{written}' (FORMAT csv, HEADER true, FORCE_QUOTE *)")
                    key = execution["ResultConfiguration"]["OutputLocation"].removeprefix(f"s3://{self.bucket}/")
                    self.s3.upload_file(str(written), self.bucket, key)
                database.close()
        except Exception as error:  # Athena answers any failure as the query's state
            self._status(execution, "FAILED", f"{type(error).__name__}: {error}")
            return
        self._status(execution, "SUCCEEDED")

    def _download(self, sql: str, folder: Path) -> list[Path]:
        """The objects of the day partitions the query names (`day BETWEEN 'first' AND 'last'`, as
        partition projection reads them), or of every day, as files."""
        named = DAYS.search(sql)
        if named is None:
            prefixes = [PREFIX]
        else:  # a range backwards names no day
            days = days_between(*sorted((named["first"], named["last"])))
            prefixes = [partition_prefix(day) for day in days] if named["first"] <= named["last"] else []
        return LakeBucket(self.s3, self.bucket).download_prefixes(prefixes, folder)

    @property
    def started(self) -> int:
        """How many queries were started."""
        with self._lock:
            return len(self._queries)

    def wait(self) -> None:
        """Wait for every query started so far (tests)."""
        for thread in list(self._threads):
            thread.join()

    def answer(self, operation: str, request: dict[str, Any]) -> dict[str, Any]:
        """The answer to one call of the Athena API."""
        if operation == "StartQueryExecution":
            return {"QueryExecutionId": self.start(request)}
        if operation == "GetQueryExecution":
            return {"QueryExecution": self.execution(str(request.get("QueryExecutionId")))}
        if operation == "GetQueryResults":
            return self.results(str(request.get("QueryExecutionId")))
        raise QueryRefused(f"not emulated: {operation}")
