"""The functions' settings: one small frozen model per concern, each field read from its
environment variable with its default and bounds (environment.py); functions.py says which
concerns each function reads. Only the composition root (shortlink.wiring) reads them."""
