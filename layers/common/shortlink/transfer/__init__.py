"""Import and export of links: formats, imports, exports; imports api schemas and the domain, no adapter."""
