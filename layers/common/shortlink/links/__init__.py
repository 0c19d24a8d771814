"""Links: the model, its operations, slugs, URLs, previews; imports codes, rules, domains, access, the bases."""
