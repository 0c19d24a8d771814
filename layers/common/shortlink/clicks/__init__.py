"""Clicks: events, packing, tallies, orphans, unique visitors, stats, the redirect's click metrics;
imports links, domains, rules, settings and the bases."""
