"""Links: the model, its ports, option checks and use cases, slugs, previews; imports codes, rules, domains,
web (URLs), access, the bases."""
