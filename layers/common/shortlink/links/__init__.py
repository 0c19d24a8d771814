"""Links: the model, its ports, option checks and use cases, slugs, URLs, previews; imports codes, rules, domains,
access, the bases."""
