"""Shared code of the shortener's functions, in packages by concern.

The bases: errors (domain errors), accepted_moments, numbers, secrets, and settings (the
functions' settings, one small model per concern).
The domain: codes, links, domains, rules, access, people, clicks, webhooks, audit, sso; none
calls AWS.
What the functions run: api (the API-key functions' HTTP), redirect, console, transfer.
adapters talk to AWS and turn its errors into domain errors; wiring, the composition root, is
the only package that builds them and the only one that reads the environment; entrypoints
holds the route modules the functions include, above it. pyproject.toml's import-linter
contracts (make lint) hold the direction:
entrypoints > wiring > adapters > console|transfer > api|redirect > domain > bases.
"""
