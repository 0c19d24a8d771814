"""The composition root's cached factories: a function made with `@factory` keeps what it built
once per environment (functools.cache) and is recorded here as it is defined, so that
`forget_all` (shortlink.wiring.reset) forgets every one: a new factory cannot be left out."""

from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from functools import _lru_cache_wrapper

Built = TypeVar("Built")

_registered: "list[_lru_cache_wrapper[Any]]" = []


def factory(build: Callable[..., Built]) -> "_lru_cache_wrapper[Built]":
    """`build`, cached per arguments and registered for `forget_all`."""
    cached = cache(build)
    _registered.append(cached)
    return cached


def registered() -> "tuple[_lru_cache_wrapper[Any], ...]":
    """Every cached factory defined so far, in the order they were defined."""
    return tuple(_registered)


def forget_all() -> None:
    """Forget what every cached factory built: each builds afresh on its next call."""
    for cached in _registered:
        cached.cache_clear()
