"""DynamoDB adapters (pynamodb, plain botocore): links table, click stats, webhooks, imports."""
