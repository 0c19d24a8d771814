"""HTTP adapters: webhook deliveries to their endpoints, the managed login of single sign-on."""
