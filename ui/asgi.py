"""The web server's additions for a server many people share (serve.py adds them to Streamlit's ASGI app)."""
from __future__ import annotations

import os
import socket
import stat
from contextlib import asynccontextmanager

import streamlit as st

from ui.priority import serving


def _base() -> str:
    """``server.baseUrlPath`` without its slashes ("" when the app is served at the root)."""
    return (st.get_option("server.baseUrlPath") or "").strip("/")


def _base_url_script() -> bytes:
    """The script that tells the frontend the server's root: the page's own origin and ``server.baseUrlPath``."""
    root = "/" + (_base() + "/" if _base() else "")
    return (b"<script>window.__streamlit = Object.assign(window.__streamlit || {}, "
            b"{BACKEND_BASE_URL: window.location.origin + \"" + root.encode() + b"\"})</script>")


def is_page_address(path: str) -> bool:
    """Whether ``path`` is the address of one of the app's pages (``/``, ``/datasets``; under ``server.baseUrlPath``
    if set), whose answer is the app's HTML: one segment at most after the base. The server's own routes
    (``/static/…``, ``/media/…`` — a downloaded HTML export among them —, ``/_stcore/…``, ``/component/…``) have
    more, or a name no page has."""
    base = _base()
    if base:
        if path != f"/{base}" and not path.startswith(f"/{base}/"):
            return False
        path = path[len(base) + 1:] or "/"
    rest = path.lstrip("/")
    return "/" not in rest and not rest.startswith("_stcore") and rest not in ("favicon.png", "manifest.json")


class SharedServerMiddleware:
    """ASGI middleware: HTTP requests count as drawing (the heavy runs pause meanwhile), and the HTML at a page's
    address (:func:`is_page_address`), asked for uncompressed (a few kB), gets :func:`_base_url_script` at the start
    of its ``<head>``. Every other response, and WebSocket connections, pass untouched."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if not is_page_address(scope.get("path", "")):  # scripts, media (downloads included), uploads, health
            with serving():
                await self.app(scope, receive, send)
            return
        # a page's HTML, a few kB: asked for uncompressed, so that the script goes in as it is
        scope = {**scope, "headers": [(k, v) for k, v in scope.get("headers", []) if k != b"accept-encoding"]}
        start: dict = {}
        body: list[bytes] = []

        async def send_page(message):
            if message["type"] == "http.response.start":
                headers = {k.lower(): v for k, v in message.get("headers", [])}
                if headers.get(b"content-type", b"").startswith(b"text/html") and b"content-encoding" not in headers:
                    start.update(message)  # held until the whole page is here
                    return
            elif start and message["type"] == "http.response.body":
                body.append(message.get("body", b""))
                if message.get("more_body", False):
                    return
                page = b"".join(body).replace(b"<head>", b"<head>" + _base_url_script(), 1)
                headers = [(k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"]
                await send({**start, "headers": headers + [(b"content-length", str(len(page)).encode())]})
                await send({"type": "http.response.body", "body": page})
                return
            await send(message)

        with serving():
            await self.app(scope, receive, send_page)


def send_small_writes_at_once() -> int:
    """``TCP_NODELAY`` on each TCP socket of this process that is bound but not connected (the server's own): on Linux
    the connections it accepts inherit it. Returns how many it set.

    The web server answers a request in two writes, the headers and then the body. asyncio turns Nagle's algorithm
    off only on sockets whose protocol number says TCP, and the server's pre-bound socket leaves that number 0: so
    the body of every small response on a kept-alive connection waited for the browser's delayed ACK, 40 ms on
    Linux (measured: 44 ms for a 419-byte script, 2 ms for the first on a new connection). A new browser fetches ~60
    such scripts over 6 connections, and every later page fetches its lazily loaded elements the same way."""
    fds = os.listdir("/proc/self/fd") if os.path.isdir("/proc/self/fd") else map(str, range(3, 1024))
    done = 0
    for name in fds:
        try:
            fd = int(name)
            if not stat.S_ISSOCK(os.fstat(fd).st_mode):
                continue
            sock = socket.socket(fileno=os.dup(fd))
        except (ValueError, OSError):
            continue
        with sock:
            if sock.family not in (socket.AF_INET, socket.AF_INET6) or sock.type != socket.SOCK_STREAM:
                continue
            try:
                sock.getpeername()
                continue  # a connection, not the server's socket
            except OSError:
                pass
            if sock.getsockname()[1] == 0:
                continue  # not bound
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            done += 1
    return done


@asynccontextmanager
async def server_lifespan(app):
    """st.App's start-up hook: it runs once the server's socket is bound, before it accepts any connection."""
    send_small_writes_at_once()
    yield None
