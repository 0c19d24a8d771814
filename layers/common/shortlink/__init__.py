"""Shared code of the shortener's functions, in packages by concern.

The bases: config (the environment, parsed once), errors (domain errors), accepted_moments, secrets.
The domain: codes, links, domains, rules, access, clicks, webhooks; none calls AWS.
The doors: console and api (each its routes and presentation, above the composition root) and
redirect; commands (what every door asks of links), transfer (file formats), schemas (a link's
public shapes). adapters talk to AWS and turn its errors into domain errors; wiring, the
composition root, is the only module that builds them. pyproject.toml's import-linter contracts
(make lint) hold the direction: console > api > wiring > adapters > commands > transfer|redirect
> schemas > domain > bases.
"""
