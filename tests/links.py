"""Links for tests of how links are stored: a plain one, and one with every option set."""

from datetime import UTC, datetime, timedelta

from shortlink.links.destinations import Utm
from shortlink.links.model import Link
from shortlink.links.previews import LinkPreview
from shortlink.rules.parsing import parse_rules

MOMENT = datetime(2026, 3, 4, 5, 6, 7, 891011, UTC)
PLAIN = Link("Ab3_x-9", "https://example.com/ünïcode?q=1#f", "owner-1", MOMENT)
EVERY_OPTION = Link(
    "Spring-Sale",
    "https://example.com/sale",
    "owner-1",
    MOMENT,
    valid_from=MOMENT + timedelta(days=1),
    expires_at=MOMENT + timedelta(days=30),
    redirect_type=308,
    tags=("promo", "q2"),
    title="Spring sale ✿",
    custom_slug=True,
    private=True,
    deleted_at=MOMENT + timedelta(days=2),
    max_clicks=100,
    password_hash="pbkdf2_sha256$1$salt$hash",
    rules=parse_rules({"deny": {"countries": ["FR"]}, "routes": [{"os": ["ios"], "url": "https://apps.example"}]}),
    forward_query=False,
    expired_url="https://example.com/ended",
    crawlable=True,
    preview=LinkPreview(title="Spring ✿", description="<sale>", image="https://example.com/i.png"),
    utm=Utm(source="news", campaign="spring"),
    domain="go.example.com",
)
