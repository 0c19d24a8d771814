"""Shared code of the shortener's functions, in packages by concern.

The bases: errors (domain errors), accepted_moments, numbers, secrets, and settings (the
functions' settings, one small model per concern).
The domain: codes, links, domains, rules, access, people, clicks, webhooks, audit, sso; none
calls AWS. web: what any door may believe of a request (event shapes, edge trust, hosts,
addresses) and URLs as browsers read them. Above the domain: schemas (a link's public shapes),
transfer (file formats), commands (what every door asks of links).
The doors: console and api (each its routes and presentation together, above the composition
root, which builds what they call) and redirect. adapters talk to AWS and turn its errors into
domain errors; wiring, the composition root, is the only package that builds them and the only
one that reads the environment. pyproject.toml's import-linter contracts (make lint) hold the
direction: console > api > wiring > adapters > commands > transfer|redirect|edge > schemas >
domain > web > bases.
"""
