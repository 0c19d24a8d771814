"""Clicks: events, packing, tallies, orphans, unique visitors, stats; imports links, domains, rules and the bases."""
