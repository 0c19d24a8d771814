"""What the redirect's walk and its pages call, handed down by the composition root
(shortlink.wiring.redirect_services) once per environment: the settings they read, already read,
this environment's cache of links, which every follow reads, and the providers of the adapters
only some follows use, each made on first use."""

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from shortlink.redirect.click_dispatch import ClickDispatcher
from shortlink.redirect.request import RequestReading

if TYPE_CHECKING:  # ports and adapters' types only: none of them loads before it is used
    from shortlink.access.rate_limits import AttemptLog
    from shortlink.domains.settings import DomainSettings
    from shortlink.links.ports import ClickBudget
    from shortlink.redirect.cache import CachedLinks
    from shortlink.redirect.responses import PlainRedirect
    from shortlink.redirect.robots import CachedRobots


@dataclass(frozen=True, slots=True)
class RedirectServices:
    links: "CachedLinks[PlainRedirect]"
    dispatcher: ClickDispatcher
    reading: RequestReading
    unlock_attempts_per_window: int
    click_budget: "Callable[[], ClickBudget]"  # the follows of links with max_clicks
    attempt_log: "Callable[[], AttemptLog]"  # password attempts per link and client
    domain_settings: "Callable[[], dict[str, DomainSettings]]"  # every domain's, by name
    robots: "Callable[[], CachedRobots]"
