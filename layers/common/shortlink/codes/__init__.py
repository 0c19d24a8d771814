"""Short codes: random, or a keyed permutation of a counter; imports only the bases (errors, secrets)."""
