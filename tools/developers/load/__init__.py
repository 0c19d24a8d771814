"""`make load`: a steady load on the local stack (loopback only, bounded in time)."""
