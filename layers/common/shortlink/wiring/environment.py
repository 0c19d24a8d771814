"""The settings of this environment, the only reading of os.environ below the functions: the
function's whole set on first use (a variable it requires that is missing or wrong fails then,
naming it), any other concern on its own first use."""

import os
from typing import TYPE_CHECKING, TypeVar, cast

from shortlink.settings.addresses import AddressSettings
from shortlink.settings.domains import ShortDomainSettings
from shortlink.settings.environment import Concern
from shortlink.settings.functions import function_settings
from shortlink.settings.lambda_runtime import LambdaRuntimeSettings
from shortlink.settings.metrics import RedirectMetricSettings
from shortlink.settings.people import PeopleSettings
from shortlink.settings.regions import RegionSettings
from shortlink.settings.resources import Resources
from shortlink.wiring.factories import factory

if TYPE_CHECKING:
    from shortlink.domains.model import ShortDomains
    from shortlink.settings.sso import SsoSettings

Model = TypeVar("Model", bound=Concern)


@factory
def function_set() -> dict[type[Concern], Concern]:
    """This function's settings by concern, read together from os.environ on first use: a
    variable the function requires that is missing or wrong fails then, naming it."""
    return function_settings(os.environ)


def settings_of(concern: type[Model]) -> Model:
    """This environment's settings of `concern` (one outside its function's set, as in tools,
    tests and the local stack, read on its own first use)."""
    read = function_set()
    model = read.get(concern)
    if model is None:
        model = read[concern] = concern.from_env(os.environ)
    return cast(Model, model)


def forget_settings() -> None:
    """Read the environment afresh on next use (for tests that change it)."""
    function_set.cache_clear()


def resources() -> Resources:
    """The tables and queues this function is told."""
    return settings_of(Resources)


def regions() -> RegionSettings:
    """This region, the deployment's regions and its home region."""
    return settings_of(RegionSettings)


def short_domains() -> "ShortDomains":
    """The stack's short domains (none: links live under their bare codes)."""
    return settings_of(ShortDomainSettings).short_domains


def addresses() -> AddressSettings:
    """The public base URL, the blocked destination domains and where the stack's own hosts are."""
    return settings_of(AddressSettings)


def redirect_metric_settings() -> RedirectMetricSettings:
    """The namespace and service the redirect's metrics are emitted under (by it and by ingest)."""
    return settings_of(RedirectMetricSettings)


def lambda_runtime() -> LambdaRuntimeSettings:
    """What Lambda's runtime tells this process, read afresh at each call: the redirect reads it
    once, at init, where the runtime (or the local stack, per function) has set it."""
    return LambdaRuntimeSettings.from_env(os.environ)


def people_settings() -> PeopleSettings:
    """The user pool people sign in with, and how invitations reach them."""
    return settings_of(PeopleSettings)


def sso_settings() -> "SsoSettings":
    """Single sign-on's settings (off unless SSO_PROVIDER_NAME names an identity provider)."""
    from shortlink.settings.sso import SsoSettings

    return settings_of(SsoSettings)
