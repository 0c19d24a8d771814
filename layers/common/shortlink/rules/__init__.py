"""A link's rules, their parsing and their vocabulary (devices, browsers, OS, countries); imports only the bases."""
