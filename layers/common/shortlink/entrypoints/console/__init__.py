"""The web console's routes, one router per area (sign-in, links, stats, keys), and the
session, CSRF and error pages they share."""
