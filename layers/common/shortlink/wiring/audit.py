"""The audit log and its recorder."""

from typing import TYPE_CHECKING

from shortlink.wiring.environment import regions, settings_of
from shortlink.wiring.factories import factory
from shortlink.wiring.webhooks import webhook_queue

if TYPE_CHECKING:
    from shortlink.adapters.dynamodb.audit_log import DynamoAuditTrail
    from shortlink.audit.recording import AuditRecorder


@factory
def audit_trail() -> "DynamoAuditTrail":
    """The audit log, in the home region's table: written beside the changes it records, which
    are made at home (a link of a generated code away from home is the exception: while home
    cannot be reached, its entry goes to this region's replica)."""
    from shortlink.adapters.dynamodb.audit_log import DynamoAuditTrail
    from shortlink.settings.audit import AuditSettings

    audit, deployment = settings_of(AuditSettings), regions()
    home, here = deployment.home_region_name, deployment.region_name
    return DynamoAuditTrail(audit.required_table(), audit.retention_days, home, here)


@factory
def audit_recorder() -> "AuditRecorder":
    """Writes a request's audit entries, then queues their audit.recorded events."""
    from shortlink.audit.recording import AuditRecorder

    return AuditRecorder(audit_trail(), webhook_queue())
