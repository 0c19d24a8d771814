"""Webhooks: endpoints, events, signing, emitting after a write; imports links, domains, the bases."""
