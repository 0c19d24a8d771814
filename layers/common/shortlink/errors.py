"""Domain errors. Each door answers them from one table: the API's in shortlink.api.errors, the
console's in its error pages; the redirect answers with its own pages."""


class ConfigurationError(RuntimeError):
    """The function's environment is incomplete or invalid (it names the variable)."""


class ShortlinkError(Exception):
    """Base of every error the domain raises on purpose."""


class InvalidUrl(ShortlinkError):
    """The destination is not a URL we redirect to."""


class InvalidLinkOption(ShortlinkError):
    """A link option (slug, dates, ...) that cannot be accepted; names the field."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


class InvalidApiKeyOption(ShortlinkError):
    """A new API key's name, scopes or expiry that cannot be accepted; names the field."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


class ScopeNotGrantable(ShortlinkError):
    """A new key would hold a scope its creator lacks (`scope`, the first such)."""

    def __init__(self, scope: str) -> None:
        super().__init__(f"granting {scope} needs the scope {scope}")
        self.scope = scope


class ApiKeyNotFound(ShortlinkError):
    """No API key with that id (or not one of the caller's account)."""


class SlugTaken(ShortlinkError):
    """The custom slug, or one a reader could take for it, belongs to another link."""


class RateLimited(ShortlinkError):
    """The caller used up its allowance; it may try again after `retry_after` seconds."""

    def __init__(self, retry_after: int) -> None:
        super().__init__(f"too many requests, retry after {retry_after} s")
        self.retry_after = retry_after


class DestinationTooLong(ShortlinkError):
    """A visitor's query would make the destination longer than a URL we redirect to."""


class LinkNotFound(ShortlinkError):
    """No link with that code (or not one the caller may see)."""


class CodeTaken(ShortlinkError):
    """A conditional put found the code already in use."""


class StorageUnavailable(ShortlinkError):
    """The store refused or throttled the request; the caller may retry."""


class NoFreeCode(ShortlinkError):
    """Every code tried for a new link was already taken."""


class CodeSpaceExhausted(NoFreeCode):
    """The id counter has run past the last code of the configured length."""


class IdempotencyKeyReused(ShortlinkError):
    """An idempotency key sent again with another request."""


class RequestInProgress(ShortlinkError):
    """The first request with this idempotency key has not answered yet."""
