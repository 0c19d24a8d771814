"""What refuses a workspace's domain: each door answers them from its one table of errors."""

from shortlink.errors import ShortlinkError


class DomainTaken(ShortlinkError):
    """Another workspace holds the domain's claim (or this one has added it already)."""

    def __init__(self, domain: str, by_this_workspace: bool) -> None:
        whose = "this workspace has added it already" if by_this_workspace else "another workspace has claimed it"
        super().__init__(f"domain {domain}: {whose}")
        self.domain = domain


class DomainNotFound(ShortlinkError):
    """The workspace has not added the domain."""

    def __init__(self, domain: str) -> None:
        super().__init__(f"no domain {domain} in this workspace")


class DomainNotVerified(ShortlinkError):
    """The domain's TXT record does not hold its token (yet)."""


class DomainInUse(ShortlinkError):
    """Live links of the workspace are on the domain: it cannot be removed."""

    def __init__(self, domain: str, links: int) -> None:
        super().__init__(
            f"domain {domain}: {links} live link{'s use' if links != 1 else ' uses'} it; "
            "move them to another domain or delete them first"
        )


class DnsUnavailable(ShortlinkError):
    """The resolver did not answer: the domain's record could not be read."""
