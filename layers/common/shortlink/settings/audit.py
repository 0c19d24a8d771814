"""The audit log's settings: its table and how many days an entry is kept (DynamoDB TTL)."""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Self

from shortlink.errors import ConfigurationError
from shortlink.numbers import NotAWholeNumber, whole_number

DEFAULT_RETENTION_DAYS = 365
MIN_RETENTION_DAYS, MAX_RETENTION_DAYS = 1, 3650


@dataclass(frozen=True)
class AuditSettings:
    table: str  # AUDIT_TABLE; empty where the function keeps no audit log
    retention_days: int = DEFAULT_RETENTION_DAYS

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Self:
        raw = env.get("AUDIT_RETENTION_DAYS", "") or str(DEFAULT_RETENTION_DAYS)
        try:
            days = whole_number(raw, "AUDIT_RETENTION_DAYS", minimum=MIN_RETENTION_DAYS, maximum=MAX_RETENTION_DAYS)
        except NotAWholeNumber as error:
            raise ConfigurationError(str(error)) from None
        return cls(table=env.get("AUDIT_TABLE", ""), retention_days=days)

    def required_table(self) -> str:
        if not self.table:
            raise ConfigurationError("environment variable AUDIT_TABLE is not set")
        return self.table
