"""botocore made once per test run, not once per test: the fresh clients a test's fresh wiring
makes (`wiring.reset()`) spent most of a short integration test making botocore sessions and
parsing its models.

Each botocore session has its own loader, which parses `endpoints.json` and a service's model
from disk again. Loaders of the same search paths share one cache here; what they return is what a
single session's loader returns to its second client of a service.
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


def share_sessions() -> None:
    """One botocore session per thread for the layer's clients: a session registers some
    hundred event handlers when made, and pynamodb and the layer made one per client."""
    import threading

    import botocore.session
    import pynamodb.connection.base

    from shortlink.adapters import botocore_clients

    local = threading.local()
    make_session = botocore.session.get_session

    def shared_session(env_vars: Any = None) -> botocore.session.Session:
        if env_vars is not None:
            return make_session(env_vars)
        session: botocore.session.Session | None = getattr(local, "session", None)
        if session is None:
            session = local.session = make_session()
        return session

    pynamodb.connection.base.get_session = shared_session  # type: ignore[attr-defined]
    botocore_clients.get_session = shared_session  # type: ignore[attr-defined]
