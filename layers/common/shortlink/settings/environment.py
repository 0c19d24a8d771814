"""How a concern's settings model reads the environment: each field names its variable, its
default and its bounds beside it (`integer("CODE_LENGTH", 7, 4, 10)`), and `from_env` reads
them all, failing with a ConfigurationError that names the variable.

A model is a frozen dataclass subclassing EnvironmentModel; checks that span fields go in its
`__post_init__`. Nothing here reads os.environ: the composition root (shortlink.wiring) does.
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any, Protocol, Self, TypeVar

from shortlink.errors import ConfigurationError

# The keys of a field's metadata: its reader (env -> the field's value) and its variable's name.
READER = "environment"
VARIABLE = "variable"

T = TypeVar("T")


def variable(name: str, default: T, parse: Callable[[str], T], *, older: str = "", secret: bool = False) -> T:
    """A field read from variable `name` (or, where it is unset, from its `older` name): `parse`
    of its value, or `default` where it is unset or empty. `parse` raises ValueError for a bad
    value, which is reported under `name`. A `secret` is left out of the model's repr."""

    def read(env: Mapping[str, str]) -> T:
        raw = env.get(name, "") or (env.get(older, "") if older else "")
        if not raw:
            return default
        try:
            return parse(raw)
        except ValueError as error:
            raise ConfigurationError(f"{name}: {error}") from None

    value: T = field(default=default, repr=not secret, metadata={READER: read, VARIABLE: name})
    return value


def text(name: str, default: str = "", *, older: str = "", secret: bool = False) -> str:
    return variable(name, default, str, older=older, secret=secret)


def integer(name: str, default: int, low: int, high: int) -> int:
    def parse(raw: str) -> int:
        try:
            value = int(raw)
        except ValueError:
            raise ValueError(f"must be an integer, got {raw!r}") from None
        if not low <= value <= high:
            raise ValueError(f"must be between {low} and {high}, got {value}")
        return value

    return variable(name, default, parse)


def choice(name: str, default: str, allowed: tuple[str, ...]) -> str:
    def parse(raw: str) -> str:
        if raw not in allowed:
            raise ValueError(f"must be one of {', '.join(allowed)}, got {raw!r}")
        return raw

    return variable(name, default, parse)


def flag(name: str) -> bool:
    """True only for the value "true" (as the template writes it)."""
    return variable(name, False, lambda raw: raw == "true")


def comma_list(text: str) -> frozenset[str]:
    """The items of a comma-separated setting, blanks around them dropped."""
    return frozenset(item.strip() for item in text.split(",") if item.strip())


def names(name: str) -> frozenset[str]:
    """A comma-separated list of names (empty: none)."""
    return variable(name, frozenset(), comma_list)


@dataclass(frozen=True, slots=True)
class Resource:
    """A table or queue a function is told by an environment variable; only the functions that
    use it are told it, and using one not told fails naming the variable."""

    variable: str
    given: str = ""

    @property
    def value(self) -> str:
        if not self.given:
            raise ConfigurationError(f"environment variable {self.variable} is not set")
        return self.given


def resource(name: str) -> Resource:
    return variable(name, Resource(name), lambda raw: Resource(name, raw))


class Concern(Protocol):
    """What the composition root reads a concern's settings with: any model with `from_env`."""

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Self: ...


class EnvironmentModel:
    """A concern's settings (a frozen dataclass of fields declared with the readers above)."""

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Self:
        readers = {each.name: each.metadata[READER] for each in fields(cls) if READER in each.metadata}  # type: ignore[arg-type]
        values: dict[str, Any] = {name: read(env) for name, read in readers.items()}
        return cls(**values)

    @classmethod
    def variables(cls) -> tuple[str, ...]:
        """The environment variables the model reads, as its fields declare them."""
        return tuple(each.metadata[VARIABLE] for each in fields(cls) if VARIABLE in each.metadata)  # type: ignore[arg-type]
