"""Who may do what: API keys, link passwords, rate limits; imports codes and the bases."""
