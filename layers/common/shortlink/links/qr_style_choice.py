"""Which style a link's QR code is drawn in: the link's own, else the workspace's default, else the plain one."""

from shortlink.links.ports import QrStyles
from shortlink.links.qr_styles import DEFAULT_STYLE, QrStyle


def chosen_style(styles: QrStyles, owner: str, link_key: str) -> tuple[QrStyle, str]:
    """The style a link's code is drawn in and whose it is: the link's own ("link"), else the
    workspace's default ("workspace"), else the plain one ("default")."""
    own = styles.style_of(owner, link_key)
    if own is not None:
        return own, "link"
    default = styles.style_of(owner, None)
    return (default, "workspace") if default is not None else (DEFAULT_STYLE, "default")
