"""What reaches the ``voxelworld play`` server: the checks every HTTP request and websocket handshake passes before
the server answers it.

- **Pages from elsewhere.** Every request, static file or websocket, must name this server in its ``Host``
  (localhost, 127.0.0.0/8, [::1] or the ``--host`` it listens on) and, when it has an ``Origin``, come from the
  page this server served (same host and port); others get 403 and the reason (:class:`ThisServerOnly`, on
  :func:`~voxelworld.viewer.hosts.request_refusal`). Clients that send no ``Origin`` (scripts) are let in.
- **A LAN game's join code** (``voxelworld play --lan``): a websocket handshake without the code the server printed
  is refused (403) and counted (:class:`JoinCode`).
- **Static files** are the files of ``viewer/web/`` only (:class:`WebFiles`).
- **A page's handshake** is refused, after it is accepted and told why, when the server is full or the page speaks
  another play protocol (:func:`protocol_refusal`, :func:`refuse_page`).
"""

from __future__ import annotations

import hmac
import logging
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .hosts import request_refusal
from .protocol import PROTOCOL_VERSION, error_message

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Receive, Scope, Send
    from starlette.websockets import WebSocket

__all__ = ["ThisServerOnly", "WebFiles", "JoinCode", "JOIN_CODE_BYTES", "new_join_code", "protocol_refusal",
           "refuse_page", "shown"]

logger = logging.getLogger("voxelworld.play")


def protocol_refusal(spoken: str | None) -> str | None:
    """Why a page that says it speaks play protocol ``spoken`` (its ``protocol`` query parameter; None: it does
    not say) cannot be served, or None when it can.

    >>> protocol_refusal(None) is None, protocol_refusal(str(PROTOCOL_VERSION)) is None
    (True, True)
    >>> protocol_refusal("0").startswith("this page speaks play protocol '0'")
    True
    """
    if spoken is None or spoken == str(PROTOCOL_VERSION):
        return None
    return f"this page speaks play protocol {shown(spoken)} and this server {PROTOCOL_VERSION}: reload the page"


async def refuse_page(websocket: WebSocket, reason: str, code: int) -> None:
    """Tell a page whose handshake was accepted why it cannot stay (an ``error`` message) and close its socket with
    ``code`` and the reason (cut to 120 characters: a close frame's limit)."""
    await websocket.send_text(error_message(reason))
    await websocket.close(code=code, reason=reason[:120])


def shown(text: str) -> str:
    """A page's text in a reply: quoted, at most 20 characters."""
    return repr(text if len(text) <= 20 else text[:17] + "...")


@dataclass(eq=False)
class JoinCode:
    """A LAN game's join code (``voxelworld play --lan``): a websocket handshake without it is refused (403), and
    ``refused`` counts the handshakes refused for a missing or wrong code. ``code``: :data:`JOIN_CODE_BYTES`
    random bytes, URL-safe (:func:`new_join_code`)."""

    code: str
    refused: int = 0

    def refusal(self, given: list[str]) -> str | None:
        """Why a handshake whose ``code`` query parameters are ``given`` is refused (counted), or None."""
        if len(given) == 1 and len(given[0]) == len(self.code) and given[0].isascii() and \
                hmac.compare_digest(given[0].encode(), self.code.encode()):
            return None
        self.refused += 1
        return "a join code is needed: open the address the server printed (its ?code=...)" if not given else \
            "wrong join code: open the address the server printed (its ?code=...)"


JOIN_CODE_BYTES = 16  # random bytes of a join code (22 URL-safe characters)


def new_join_code() -> JoinCode:
    """A new :class:`JoinCode` from the system's secure random source."""
    return JoinCode(secrets.token_urlsafe(JOIN_CODE_BYTES))


class ThisServerOnly:
    """ASGI middleware: an HTTP request or a websocket handshake that :func:`request_refusal` refuses gets 403
    and the reason (a handshake is refused before it is accepted), whatever its path; with a ``join`` code (a LAN
    game), a websocket handshake without it too."""

    def __init__(self, app: ASGIApp, host: str, join: JoinCode | None = None) -> None:
        self.app, self.host, self.join = app, host, join

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            from starlette.datastructures import Headers, QueryParams

            headers = Headers(scope=scope)
            reason = request_refusal(headers.getlist("host"), headers.getlist("origin"), self.host)
            if reason is None and self.join is not None and scope["type"] == "websocket":
                reason = self.join.refusal(QueryParams(scope.get("query_string", b"")).getlist("code"))
            if reason is not None:
                from starlette.responses import PlainTextResponse

                logger.info("refused %s %s: %s", scope["type"], scope.get("path", ""), reason)
                if scope["type"] == "http" or "websocket.http.response" in scope.get("extensions", {}):
                    await PlainTextResponse(reason + "\n", status_code=403)(scope, receive, send)
                else:  # a server without denial responses: a bare 403
                    await send({"type": "websocket.close", "code": 1008, "reason": reason[:120]})
                return
        await self.app(scope, receive, send)


class WebFiles:
    """The files of ``viewer/web/`` only: paths with ``..``, backslashes, NUL bytes or an empty segment are
    refused (404) before Starlette's StaticFiles (which refuses paths leaving its folder too) looks at them."""

    def __init__(self, directory: Path) -> None:
        from starlette.staticfiles import StaticFiles

        self.files = StaticFiles(directory=directory, html=True)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            path = scope.get("path", "")
            raw = scope.get("raw_path", b"").decode("latin-1").lower()
            segments = path.split("/")[1:]
            if (".." in segments or "\\" in path or "\x00" in path or "//" in path or "%2e%2e" in raw
                    or "%2f" in raw or "%5c" in raw or "%00" in raw):
                from starlette.responses import PlainTextResponse

                await PlainTextResponse("Not Found", status_code=404)(scope, receive, send)
                return
        await self.files(scope, receive, send)
