"""S3 adapters: the IP databases the redirect reads after its response."""
