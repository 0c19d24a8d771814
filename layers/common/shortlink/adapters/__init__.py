"""Adapters: the only modules that talk to AWS; they turn AWS errors into domain errors."""
