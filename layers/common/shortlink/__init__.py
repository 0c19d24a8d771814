"""Shared code of the shortener's functions, in packages by concern.

The bases: config (the environment, parsed once), errors (domain errors), accepted_moments, secrets.
The domain: codes, links, domains, rules, access, clicks, webhooks, sso; none calls AWS.
web: what any door may believe of a request (edge trust, hosts, addresses, event shapes) and URLs.
What the functions run: api (the API-key functions' HTTP), redirect, console, transfer.
adapters talk to AWS and turn its errors into domain errors; wiring, the composition root, is
the only module that builds them. pyproject.toml's import-linter contracts (make lint) hold
the direction: wiring > adapters > console|transfer > api|redirect > domain > bases.
"""
