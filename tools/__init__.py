"""The project's commands, by who runs them: `operators` (against a stack, deployed or local)
and `developers` (the local stack, benchmarks, generators)."""
