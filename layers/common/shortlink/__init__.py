"""Shared domain code of the shortener: code generation, links, API keys and clicks.

Modules here never call AWS; the adapters package does, and turns AWS errors into the
domain errors of `shortlink.errors`.
"""
