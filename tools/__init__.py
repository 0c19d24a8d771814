"""Developer tools: the local stack (`devstack`), the admin command and the benchmarks."""
