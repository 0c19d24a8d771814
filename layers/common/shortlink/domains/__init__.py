"""Short domains: the key a link lives under, each domain's settings; imports links.urls and the bases."""
