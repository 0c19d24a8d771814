"""A link's rules and their vocabulary (devices, browsers, OS, countries); imports only the bases."""
