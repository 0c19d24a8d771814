"""Clicks: events, packing, tallies, orphans, unique visitors, stats; imports links and the bases."""
