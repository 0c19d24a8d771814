"""Athena adapters: the click lake's queries (docs/click-lake.md)."""
