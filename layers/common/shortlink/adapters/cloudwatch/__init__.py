"""CloudWatch: metrics the stack reads back (the edge's counts)."""
