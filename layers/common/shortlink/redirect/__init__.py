"""The redirect function's parts: its door (the handler), its request read once, the walk through
a link's settings, pages, cache, click dispatch; imports the domain, no adapter."""
