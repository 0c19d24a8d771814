"""Short domains: the key a link lives under, each domain's settings; imports web.urls and the bases."""
