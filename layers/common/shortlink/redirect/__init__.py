"""The redirect function's parts: request, pages, cache, click dispatch; imports the domain, no adapter."""
