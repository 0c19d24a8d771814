"""The click lake's Parquet files with DuckDB: written as Firehose's conversion writes them (the
columns of shortlink.clicks.lake_rows, Snappy pages), read as Athena reads the table (the files of
`clicks/day=YYYY-MM-DD/` with the day from the path)."""

import json
import tempfile
from collections.abc import Iterable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import duckdb

from shortlink.clicks.lake_rows import COLUMNS, PARTITION
from tools.operators.click_lake.queries import TABLE

# clicked_at as rows carry it (shortlink.clicks.lake_rows), in DuckDB's strptime (%g: milliseconds).
TIMESTAMP_FORMAT = "%Y-%m-%dT%H:%M:%S.%g"
# Glue's column types as DuckDB's.
DUCKDB_TYPES = {"string": "VARCHAR", "timestamp": "TIMESTAMP", "boolean": "BOOLEAN", "array<string>": "VARCHAR[]"}


def _timestamp(value: object) -> str:
    """A timestamp read back from a file (a naive UTC datetime) as a row carries it."""
    if not isinstance(value, datetime):
        raise TypeError(f"not a row value: {value!r}")
    return value.strftime(TIMESTAMP_FORMAT.replace("%g", "%f"))[:-3] + "Z"


def parquet_bytes(rows: Sequence[dict[str, Any]]) -> bytes:
    """One Parquet file of these rows (their partition column left out, as Firehose does), read
    from JSON as Firehose's OpenX SerDe reads them: by column name, `clicked_at` as UTC."""
    database = duckdb.connect()
    columns = ", ".join(f"'{name}': '{DUCKDB_TYPES[kind]}'" for name, kind in COLUMNS)
    with tempfile.TemporaryDirectory() as folder:
        source, target = Path(folder) / "rows.json", Path(folder) / "rows.parquet"
        source.write_text("".join(json.dumps(row, default=_timestamp) + "\n" for row in rows))
        reading = f"read_json('{source}', format = 'newline_delimited', columns = {{{columns}}}, timestampformat = "
        reading += f"'{TIMESTAMP_FORMAT}Z')"  # our own file and columns, no caller's text
        database.execute(f"COPY (SELECT * FROM {reading}) TO '{target}' (FORMAT parquet, COMPRESSION snappy)")  # noqa: S608
        database.close()
        return target.read_bytes()


def lake_connection(files: Iterable[Path]) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection whose `clicks` view reads these files as Athena reads the table (the
    day from each file's `day=` folder); an empty lake is an empty view of the same columns."""
    database = duckdb.connect()
    paths = sorted(str(path) for path in files)
    if paths:
        listed = ", ".join("'" + path.replace("'", "''") + "'" for path in paths)  # our own files' paths
        database.execute(
            f"CREATE VIEW {TABLE} AS SELECT * FROM read_parquet([{listed}], hive_partitioning = true, "  # noqa: S608
            f"hive_types = {{'{PARTITION}': VARCHAR}})"
        )
    else:
        columns = ", ".join(f'CAST(NULL AS {DUCKDB_TYPES[kind]}) AS "{name}"' for name, kind in COLUMNS)
        database.execute(f"CREATE VIEW {TABLE} AS SELECT {columns}, CAST(NULL AS VARCHAR) AS {PARTITION} WHERE false")
    return database
