"""What operators run against a stack, deployed or local: the admin command (API keys,
invitations, orphan visits), the stack's secrets, import and export of links, and lost clicks
and dead letters back to the queue; `api_client` and `aws_target` say where each acts."""
