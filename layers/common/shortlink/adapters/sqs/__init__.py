"""SQS adapters: the clicks queue and the webhook queue."""
