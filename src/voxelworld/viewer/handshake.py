"""What reaches the ``voxelworld play`` server: the checks every HTTP request and websocket handshake passes before
the server answers it.

- **Pages from elsewhere.** Every request, static file or websocket, must name this server in its ``Host``
  (localhost, 127.0.0.0/8, [::1] or the ``--host`` it listens on) and, when it has an ``Origin``, come from the
  page this server served (same host and port); others get 403 and the reason (:class:`ThisServerOnly`, on
  :func:`~voxelworld.viewer.hosts.request_refusal`). Clients that send no ``Origin`` (scripts) are let in.
- **Static files** are the files of ``viewer/web/`` only (:class:`WebFiles`).
- **A page's handshake** is refused, after it is accepted and told why, when the server is full or the page speaks
  another play protocol (:func:`protocol_refusal`, :func:`refuse_page`).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

from .hosts import request_refusal
from .protocol import PROTOCOL_VERSION, error_message

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Receive, Scope, Send
    from starlette.websockets import WebSocket

__all__ = ["ThisServerOnly", "WebFiles", "protocol_refusal", "refuse_page", "shown"]

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


class ThisServerOnly:
    """ASGI middleware: an HTTP request or a websocket handshake that :func:`request_refusal` refuses gets 403
    and the reason (a handshake is refused before it is accepted), whatever its path."""

    def __init__(self, app: ASGIApp, host: str) -> None:
        self.app, self.host = app, host

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            from starlette.datastructures import Headers

            headers = Headers(scope=scope)
            reason = request_refusal(headers.getlist("host"), headers.getlist("origin"), self.host)
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
