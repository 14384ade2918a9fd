"""Who may reach the ``voxelworld play`` server: the ``Host`` and ``Origin`` a request must carry.

A browser lets any web page open a websocket to 127.0.0.1, and DNS rebinding lets a page of ``evil.example``
(whose name its owner made resolve to 127.0.0.1) fetch from it as if it were its own site. Both still name the
site they came from: the page sends ``Origin: http://evil.example``, the rebound one ``Host: evil.example`` too.
So the server (``voxelworld.viewer.server``) serves a request, static file or websocket, only when
:func:`request_refusal` finds nothing wrong with these two headers.

Examples
--------
>>> request_refusal(["localhost:8765"], ["http://localhost:8765"]) is None
True
>>> request_refusal(["evil.example:8765"], ["http://evil.example:8765"])
"Host 'evil.example:8765' is not a name of this server (localhost, 127.0.0.0/8, [::1] or its --host)"
>>> request_refusal(["127.0.0.1:8765"], ["http://localhost:3000"])
"Origin 'http://localhost:3000' is not this server's page (http://127.0.0.1:8765)"
>>> request_refusal(["192.168.1.20:8765"], [], host="0.0.0.0") is None
True
"""

from __future__ import annotations

import ipaddress
import re

__all__ = ["WILDCARD_HOSTS", "accepted_host_name", "request_refusal"]

WILDCARD_HOSTS = ("0.0.0.0", "::", "")  # --host values that listen on every address of the machine
_AUTHORITY = re.compile(r"(?P<name>[a-z0-9.-]+|\[[0-9a-f:.]+\])(?::(?P<port>[0-9]{1,5}))?")
_SHOWN = 80  # characters of a refused header quoted in the reason


def _address(name: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(name)
    except ValueError:
        return None


def _host_name(name: str) -> str:
    """A host as Host headers and Origins are compared: lower case; an IP address in its usual form, without
    brackets."""
    name = name.lower()
    address = _address(name[1:-1] if name.startswith("[") and name.endswith("]") else name)
    return name if address is None else str(address)


def _authority(text: str) -> tuple[str, int | None] | None:
    """``(host name, port or None)`` of a ``Host`` value (``localhost:8765``, ``[::1]``), or None when the text
    is not one (user info, a path, spaces, a port of more than 5 digits)."""
    match = _AUTHORITY.fullmatch(text.lower())
    if match is None:
        return None
    return _host_name(match["name"]), None if match["port"] is None else int(match["port"])


def accepted_host_name(name: str, host: str = "127.0.0.1") -> bool:
    """Whether ``name``, the host part of a ``Host`` header, names a server listening on ``host``: ``localhost``
    and the loopback addresses (127.0.0.0/8, ``::1``) always; ``host`` itself; any IP address when ``host`` is a
    wildcard (:data:`WILDCARD_HOSTS`): an address typed into the browser cannot be rebound the way a DNS name can.

    >>> [accepted_host_name(name) for name in ("localhost", "127.3.2.1", "::1", "evil.example", "10.0.0.2")]
    [True, True, True, False, False]
    >>> accepted_host_name("mybox.lan", host="mybox.lan"), accepted_host_name("10.0.0.2", host="::")
    (True, True)
    """
    name = _host_name(name)
    address = _address(name)
    if name == "localhost" or (address is not None and address.is_loopback):
        return True
    chosen = _host_name(host)
    return address is not None if chosen in WILDCARD_HOSTS else name == chosen


def _shown(value: str) -> str:
    return repr(value if len(value) <= _SHOWN else value[:_SHOWN] + "...")


def request_refusal(hosts: list[str], origins: list[str], host: str = "127.0.0.1") -> str | None:
    """Why a request (HTTP, or a websocket handshake) to a server listening on ``host`` is refused, or None
    when it is accepted. ``hosts`` and ``origins``: the values of its ``Host`` and ``Origin`` headers.

    It needs one ``Host`` whose name :func:`accepted_host_name` accepts, with or without a port (a port
    forwarded elsewhere keeps working). An ``Origin``, when there is one, must be ``http`` or ``https`` with the
    same host and port as the ``Host``: the page this server served. Scripts send no ``Origin``; browsers
    always do for websockets.
    """
    if len(hosts) != 1:
        return f"a request needs one Host header, this one has {len(hosts)}"
    authority = _authority(hosts[0])
    if authority is None or not accepted_host_name(authority[0], host):
        return f"Host {_shown(hosts[0])} is not a name of this server (localhost, 127.0.0.0/8, [::1] or its --host)"
    if not origins:
        return None
    scheme, _, rest = origins[0].lower().partition("://")
    if len(origins) != 1 or scheme not in ("http", "https") or _authority(rest) != authority:
        return f"Origin {_shown(origins[0])} is not this server's page (http://{hosts[0]})"
    return None
