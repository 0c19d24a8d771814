"""Where the redirect finds its IP databases (.mmdb), read after the response: the country
database where the edge gives no country (shortlink.clicks.country_database) and the network
database of the scanner signals (shortlink.clicks.network_database). Each is a file of the
function, or an object of the operator's bucket refreshed without a redeploy
(shortlink.adapters.s3.ip_database_objects), which wins where both are set."""

from dataclasses import dataclass

from shortlink.settings.environment import EnvironmentModel, integer, text


@dataclass(frozen=True)
class IpDatabaseSettings(EnvironmentModel):
    country_database: str = text("COUNTRY_DATABASE")
    network_database: str = text("NETWORK_DATABASE")
    # The bucket and the objects' keys (empty: no object of that database).
    bucket: str = text("IP_DATABASE_BUCKET")
    country_key: str = text("COUNTRY_DATABASE_KEY")
    network_key: str = text("NETWORK_DATABASE_KEY")
    # Each environment asks whether an object changed (its ETag) at most this often.
    check_minutes: int = integer("IP_DATABASE_CHECK_MINUTES", 60, 1, 1440)
