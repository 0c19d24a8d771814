"""The console door (/console): its routes, one Powertools router per area (sign-in, links,
stats, keys, members, security, audit) with what they share in `plumbing`, next to its
presentation (pages, forms, sessions, error pages); above the composition root, which builds
what they call. Imports the API door, schemas and the domain, no adapter."""
