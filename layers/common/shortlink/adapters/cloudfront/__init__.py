"""CloudFront: the edge's KeyValueStore."""
