"""The audit log: who (an API key or a person) did what to which link, key, webhook endpoint,
member or setting, when, and from which address (hashed as visitors' are). Entries are only
ever added. Nothing here calls AWS: the store is a port (`trail.AuditTrail`), its DynamoDB
adapter lives in shortlink.adapters.dynamodb.audit_log, built by shortlink.wiring."""
