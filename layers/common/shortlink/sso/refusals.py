"""Why a single sign-on did not complete: each refusal names the problem for the person's page."""

from shortlink.errors import ShortlinkError


class SsoRefused(ShortlinkError):
    """A sign-in the console refuses (its HTTP status and what went wrong); no session, no membership."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class LoginServiceUnavailable(ShortlinkError):
    """The managed login's token endpoint or key set did not answer as it should."""
