"""Imports: each record of a file becomes a link through the create path (the same validation,
destination checks and create allowance as POST /links), or a per-record error.

Re-running an import creates nothing twice. A record with a code (a slug) is that code: already
this key's with the same destination, it is skipped; anyone else's, or another destination, and
it fails as taken. A record without one is known by its import key, a hash of the key's id and
the record's fields, claimed in the same transaction as its link: a re-run finds the claim and
skips it. A record's `domain` (as an export writes it) puts its link on that short domain; a
record without one is the default domain's.
"""

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any, Literal, Protocol

from pydantic import AfterValidator, Field, ValidationError, model_validator

from shortlink.access.passwords import password_hash_problem
from shortlink.domains.model import DomainNames, link_key
from shortlink.errors import RateLimited, ShortlinkError, SlugTaken
from shortlink.links.model import PRIVATE_CODE_LENGTH, Link, LinkOptions
from shortlink.links.ports import Allowance, LinkRepository
from shortlink.links.use_cases import create_link, find_link
from shortlink.schemas.links import (
    STRICT_REQUEST,
    DestinationOptions,
    MaxClicks,
    Moment,
    RedirectType,
    Rules,
    Tags,
    Title,
    Url,
)
from shortlink.transfer.formats import Record
from shortlink.web.urls import DestinationPolicy, validate_destination

if TYPE_CHECKING:
    from shortlink.codes.generator import CodeSource

# POST /links/import: what fits a request's body and its function's 29 s (about four DynamoDB
# calls per new link); the command sends larger files in parts of this many records.
MAX_IMPORT_RECORDS = 500
MAX_IMPORT_BYTES = 1024 * 1024

Status = Literal["created", "skipped", "failed"]
EXISTS = "this key has a link with this code and destination already"
IMPORTED_BEFORE = "imported before (the same link without a code)"


# A private link's code as the create draws it: secrets.token_urlsafe(16), 22 characters of
# URL-safe base64 whose last encodes 2 bits (A, Q, g or w).
PRIVATE_CODE = re.compile(r"[A-Za-z0-9_-]{21}[AQgw]")
# A drawn code has fewer than 9 different characters once in 3 billion: fewer is a chosen one.
MIN_PRIVATE_CODE_CHARACTERS = 9


def _drawn_code(code: str) -> bool:
    return PRIVATE_CODE.fullmatch(code) is not None and len(set(code)) >= MIN_PRIVATE_CODE_CHARACTERS


def _password_hash(text: str) -> str:
    problem = password_hash_problem(text)
    if problem is not None:  # refused here: stored, it would fail every unlock or cost seconds each
        raise ValueError(problem)
    return text


class ImportedLink(DestinationOptions):
    """A record's fields, checked as POST /links checks a request; an export's extra fields
    (`password_hash`, `deleted_at`) restore what it saved."""

    model_config = STRICT_REQUEST

    url: Url
    slug: Annotated[str | None, Field(min_length=1, max_length=64)] = None
    valid_from: Moment | None = None
    expires_at: Moment | None = None
    redirect_type: RedirectType = 302
    tags: Tags = []  # noqa: RUF012 - a pydantic model (by DestinationOptions): defaults are copied
    title: Title | None = None
    private: bool = False
    max_clicks: MaxClicks | None = None
    password_hash: Annotated[str | None, AfterValidator(lambda text: text and _password_hash(text))] = None
    rules: Rules | None = None
    deleted_at: Moment | None = None
    domain: Annotated[str | None, Field(max_length=260)] = None

    @model_validator(mode="after")
    def private_code_drawn(self) -> "ImportedLink":
        """A private link's code is its capability: an import restores one that may have been
        drawn by a create, never a chosen one (AAAA...)."""
        # Other lengths: the create refuses a slug for a private link.
        if (
            self.private
            and self.slug is not None
            and len(self.slug) == PRIVATE_CODE_LENGTH
            and not _drawn_code(self.slug)
        ):
            raise ValueError(
                "slug: a private link's code must be one a create drew (22 random URL-safe characters); "
                "leave out slug to draw a new one"
            )
        return self

    def options(self, domains: DomainNames) -> LinkOptions:
        excluded = {"url", "tags", "deleted_at", "domain", *DestinationOptions.model_fields}
        return LinkOptions(
            **self.model_dump(exclude=excluded),
            **self.destination_options(),
            tags=tuple(dict.fromkeys(self.tags)),
            domain=domains.domain_named(self.domain),
            imported=True,
        )

    def import_key(self, owner: str) -> str:
        """The same for the same record of the same key, whichever file or format brought it (a
        record without a domain hashes as it did before domains)."""
        fields = self.model_dump(mode="json", exclude={"deleted_at", *(("domain",) if self.domain is None else ())})
        canonical = json.dumps([owner, fields], sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode()).hexdigest()


@dataclass(frozen=True)
class RecordResult:
    line: int
    status: Status
    code: str | None = None
    url: str | None = None
    error: str | None = None
    message: str | None = None

    def as_json(self) -> dict[str, Any]:
        return {name: value for name, value in self.__dict__.items() if value is not None}


@dataclass
class ImportReport:
    results: list[RecordResult] = field(default_factory=list)

    def count(self, status: Status) -> int:
        return sum(1 for result in self.results if result.status == status)

    def as_json(self) -> dict[str, Any]:
        return {
            "created": self.count("created"),
            "skipped": self.count("skipped"),
            "failed": self.count("failed"),
            "results": [result.as_json() for result in self.results],
        }


class ImportRepository(LinkRepository, Protocol):
    def imported_code(self, import_key: str) -> str | None:
        """The code of the link an earlier import made of this record, if any (a read)."""

    def claiming(self, import_key: str) -> LinkRepository:
        """This repository, whose `add` also claims `import_key`, in one transaction; it raises
        AlreadyImported when the claim exists."""


class AlreadyImported(ShortlinkError):
    """Another run of the same import claimed this record first; the message is its code."""


# What a failure is called and says (the API's error codes and messages, from the function).
FailureAnswer = Callable[[ShortlinkError], tuple[str, str]]
InvalidAnswer = Callable[[ValidationError], str]


@dataclass(frozen=True)
class Importer:
    """Everything the create path needs, once per import, and how failures are described."""

    owner: str
    codes: "CodeSource"
    links: ImportRepository
    now: datetime
    policy: DestinationPolicy | None
    allowance: Allowance | None
    failure_answer: FailureAnswer
    invalid_answer: InvalidAnswer
    domains: DomainNames
    created: list[Link] = field(default_factory=list)  # the links this run wrote, as stored

    def run(self, records: list[Record]) -> ImportReport:
        report = ImportReport()
        rate_limited: RateLimited | None = None
        for record in records:
            problems = record.problems  # what the file said that no link can take
            try:
                link = ImportedLink.model_validate(record.fields)
            except ValidationError as error:
                problems = (*problems, self.invalid_answer(error))
            if problems:
                message = "; ".join(problems)
                report.results.append(RecordResult(record.line, "failed", error="invalid_request", message=message))
                continue
            try:
                result = self._existing(record.line, link)
                if result is None and rate_limited is not None:  # the minute is used up: no more tries
                    raise rate_limited
                result = result or self._create(record.line, link)
            except ShortlinkError as error:
                if isinstance(error, RateLimited):
                    rate_limited = error
                error_code, message = self.failure_answer(error)
                result = RecordResult(record.line, "failed", link.slug, link.url, error_code, message)
            report.results.append(result)
        return report

    def _existing(self, line: int, link: ImportedLink) -> RecordResult | None:
        """Skipped, or failed as taken, without writing: a record an earlier run (or someone) stored."""
        if link.slug is None:
            code = self.links.imported_code(link.import_key(self.owner))
            return RecordResult(line, "skipped", code, link.url, message=IMPORTED_BEFORE) if code else None
        # A slug no code can have is refused by the create.
        found = find_link(link_key(self.domains.domain_named(link.domain), link.slug), self.links)
        if found is None:
            return None
        if found.owner == self.owner and found.url == validate_destination(link.url, self.policy):
            return RecordResult(line, "skipped", found.code, found.url, message=EXISTS)
        raise SlugTaken(link.slug)

    def _create(self, line: int, link: ImportedLink) -> RecordResult:
        key = link.import_key(self.owner)
        links = self.links if link.slug is not None else self.links.claiming(key)
        try:
            created = create_link(
                link.url,
                self.owner,
                self.codes,
                links,
                self.now,
                link.options(self.domains),
                self.policy,
                self.allowance,
            )
        except AlreadyImported as error:  # a run beside this one was first
            return RecordResult(line, "skipped", str(error), link.url, message=IMPORTED_BEFORE)
        if link.deleted_at is not None:
            created = self.links.set_deleted(created.key, self.owner, link.deleted_at)
        self.created.append(created)
        return RecordResult(line, "created", created.code, created.url)
