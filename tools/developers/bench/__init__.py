"""`make bench`: the redirect's speed and cost, measured against floors and a naive handler."""
