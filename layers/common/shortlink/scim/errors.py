"""What a SCIM request is refused with: an HTTP status, SCIM's `scimType` where RFC 7644 names
one (section 3.12), and a detail naming the problem."""

from shortlink.errors import ShortlinkError


class ScimProblem(ShortlinkError):
    """A refused SCIM request; answered in SCIM's error schema."""

    def __init__(self, status: int, detail: str, scim_type: str = "") -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail
        self.scim_type = scim_type


def invalid_value(detail: str) -> ScimProblem:
    return ScimProblem(400, detail, "invalidValue")


def not_found(kind: str, scim_id: str) -> ScimProblem:
    return ScimProblem(404, f"no {kind} {scim_id[:64]!r} in this workspace")
