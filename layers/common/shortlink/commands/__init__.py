"""Application services: what a door asks of the domain, assembled once for every door."""
