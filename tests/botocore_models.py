"""botocore's models read once per test run, not once per session.

Each botocore session has its own loader, which parses `endpoints.json` and a service's model
from disk again: the fresh clients a test's fresh wiring makes (`wiring.reset()`) spent most of a
short integration test there. Loaders of the same search paths share one cache here; what they
return is what a single session's loader returns to its second client of a service.
"""

from typing import Any

from botocore import loaders

_caches: dict[tuple[str, ...], dict[Any, Any]] = {}


def install() -> None:
    if getattr(loaders.Loader, "_shared_cache_installed", False):
        return
    original_init = loaders.Loader.__init__

    def init_sharing_the_cache(self: loaders.Loader, *args: Any, **kwargs: Any) -> None:
        original_init(self, *args, **kwargs)
        self._cache = _caches.setdefault(tuple(self.search_paths), {})  # type: ignore[attr-defined]

    loaders.Loader.__init__ = init_sharing_the_cache  # type: ignore[method-assign]
    loaders.Loader._shared_cache_installed = True  # type: ignore[attr-defined]
