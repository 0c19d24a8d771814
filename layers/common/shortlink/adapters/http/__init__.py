"""HTTP adapters: webhook deliveries to their endpoints."""
