"""The click lake for operators: its named queries, reconciliation and erasure (docs/click-lake.md)."""
