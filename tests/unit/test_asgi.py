"""The web server's middleware (ui/asgi.py, served by serve.py): requests count as drawing while they are answered,
a page's HTML tells the frontend the server's root, and nothing else is touched."""
import asyncio

import pytest

from ui import priority
from ui.asgi import SharedServerMiddleware

def run(coroutine):
    """``asyncio.run`` in a thread of its own: a browser test before this one in the same test worker leaves
    Playwright's event loop running in this thread."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


PAGE = b"<!DOCTYPE html><html><head><title>t</title></head><body></body></html>"


def exchange(scope, inner_headers, chunks):
    """Run the middleware around an app that answers with ``inner_headers`` and the body ``chunks``; returns what the
    app saw (its scope, the number of pages drawing while it answered) and the messages sent to the client."""
    seen, sent = {}, []

    async def inner(scope, receive, send):
        seen["scope"], seen["drawing"] = scope, priority.drawing_now()
        await send({"type": "http.response.start", "status": 200, "headers": inner_headers})
        for i, chunk in enumerate(chunks):
            await send({"type": "http.response.body", "body": chunk, "more_body": i < len(chunks) - 1})

    async def receive():
        return {"type": "http.request"}

    async def send(message):
        sent.append(message)

    run(SharedServerMiddleware(inner)(scope, receive, send))
    return seen, sent


def http(path, accept=b"*/*"):
    return {"type": "http", "path": path, "headers": [(b"accept", accept), (b"accept-encoding", b"gzip, br")]}


def test_a_page_address_gets_its_html_uncompressed_with_the_server_root_and_a_right_length():
    html = [(b"content-type", b"text/html; charset=utf-8"), (b"content-length", str(len(PAGE)).encode())]
    seen, sent = exchange(http("/datasets", b"text/html,application/xhtml+xml"), html, [PAGE[:20], PAGE[20:]])
    assert (b"accept-encoding", b"gzip, br") not in seen["scope"]["headers"]  # asked for uncompressed
    start, body = sent
    page = body["body"]
    assert page.startswith(b"<!DOCTYPE html><html><head><script>window.__streamlit = ")
    assert b'BACKEND_BASE_URL: window.location.origin + "/"' in page
    assert page.endswith(PAGE[len(b"<!DOCTYPE html><html><head>"):])
    lengths = [v for k, v in start["headers"] if k == b"content-length"]
    assert lengths == [str(len(page)).encode()] and not body.get("more_body", False)


def test_the_server_root_follows_base_url_path(monkeypatch):
    import streamlit as st

    real = st.get_option
    monkeypatch.setattr(st, "get_option", lambda key: "/course/" if key == "server.baseUrlPath" else real(key))
    _, sent = exchange(http("/course/datasets", b"text/html"), [(b"content-type", b"text/html")], [PAGE])
    assert b'window.location.origin + "/course/"' in sent[1]["body"]


@pytest.mark.parametrize("path, headers", [
    ("/static/js/index.js", [(b"content-type", b"application/javascript")]),
    # a graph's HTML export, downloaded (the browser asks for text/html): the user's file, not the app's page
    ("/media/5c2d1e.html", [(b"content-type", b"text/html")]),
    ("/datasets", [(b"content-type", b"text/html"), (b"content-encoding", b"gzip")]),  # compressed: as it is
])
def test_scripts_downloads_and_compressed_pages_pass_untouched(path, headers):
    seen, sent = exchange(http(path, b"text/html,*/*"), headers, [b"<head>a", b"b"])
    if path != "/datasets":
        assert (b"accept-encoding", b"gzip, br") in seen["scope"]["headers"]
    assert [m.get("body") for m in sent] == [None, b"<head>a", b"b"]
    assert sent[0]["headers"] == headers


@pytest.mark.parametrize("base, path, page", [
    ("", "/", True), ("", "/datasets", True), ("", "/media/x.html", False), ("", "/static/js/a.js", False),
    ("", "/_stcore/health", False), ("", "/favicon.png", False), ("", "/component/x/index.html", False),
    ("course", "/course", True), ("course", "/course/", True), ("course", "/course/datasets", True),
    ("course", "/datasets", False), ("course", "/course/media/x.html", False), ("course", "/courses", False),
])
def test_page_addresses(monkeypatch, base, path, page):
    import streamlit as st

    from ui.asgi import is_page_address

    real = st.get_option
    monkeypatch.setattr(st, "get_option", lambda key: base if key == "server.baseUrlPath" else real(key))
    assert is_page_address(path) is page


def test_a_request_counts_as_drawing_until_it_is_answered():
    assert priority.drawing_now() == 0
    seen, _ = exchange(http("/static/js/index.js"), [(b"content-type", b"text/javascript")], [b"x"])
    assert seen["drawing"] == 1 and priority.drawing_now() == 0


def test_interleaved_requests_on_one_event_loop_count_each_and_end_at_zero():
    """Requests interleave on the server's one thread: the count must not depend on per-thread state."""
    counts = []
    gate = asyncio.Event()

    async def inner(scope, receive, send):
        counts.append(priority.drawing_now())
        if scope["path"] == "/first":
            await gate.wait()  # the first is still being answered when the second starts and ends
        else:
            gate.set()
        counts.append(priority.drawing_now())
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    async def nothing():
        return {"type": "http.request"}

    async def drop(message):
        pass

    async def both():
        mw = SharedServerMiddleware(inner)
        await asyncio.gather(mw(http("/first"), nothing, drop), mw(http("/second"), nothing, drop))

    run(both())
    assert counts == [1, 2, 2, 1] and priority.drawing_now() == 0


def test_a_failing_request_still_ends_its_count():
    async def inner(scope, receive, send):
        raise RuntimeError("broken")

    async def nothing():
        return {"type": "http.request"}

    with pytest.raises(RuntimeError):
        run(SharedServerMiddleware(inner)(http("/x"), nothing, None))
    assert priority.drawing_now() == 0


def test_a_websocket_passes_untouched_and_does_not_count():
    seen = {}

    async def inner(scope, receive, send):
        seen["scope"], seen["drawing"] = scope, priority.drawing_now()

    scope = {"type": "websocket", "path": "/_stcore/stream", "headers": [(b"accept-encoding", b"gzip")]}
    run(SharedServerMiddleware(inner)(scope, None, None))
    assert seen == {"scope": scope, "drawing": 0}


def test_the_servers_socket_sends_small_writes_at_once_and_connections_are_left_alone():
    """A bound socket, not yet listening as when st.App's start-up hook runs, gets TCP_NODELAY, and the connections
    it accepts once it listens inherit it; a connected socket, a unix socket and an unbound one are not touched."""
    import socket

    from ui.asgi import send_small_writes_at_once

    nodelay = (socket.IPPROTO_TCP, socket.TCP_NODELAY)
    bound = socket.socket(socket.AF_INET, socket.SOCK_STREAM)  # protocol number 0, as the server's own
    bound.bind(("127.0.0.1", 0))
    other = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    other.bind(("127.0.0.1", 0))
    other.listen()
    client = socket.create_connection(other.getsockname())
    unbound = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    a, b = socket.socketpair()
    opened = [bound, other, client, unbound, a, b]
    try:
        assert bound.getsockopt(*nodelay) == 0
        assert send_small_writes_at_once() >= 2
        assert bound.getsockopt(*nodelay) == 1 and other.getsockopt(*nodelay) == 1
        assert unbound.getsockopt(*nodelay) == 0 and client.getsockopt(*nodelay) == 0
        bound.listen()
        opened.append(socket.create_connection(bound.getsockname()))
        accepted, _ = bound.accept()
        opened.append(accepted)
        assert accepted.getsockopt(*nodelay) == 1  # inherited: what the server's connections get
        assert a.fileno() > 0 and b.fileno() > 0  # the unix pair is skipped and stays open
    finally:
        for s in opened:
            s.close()


def test_serve_py_adds_the_middleware_and_the_start_up_hook():
    import ast
    from pathlib import Path

    from conftest import ROOT

    tree = ast.parse(Path(ROOT, "serve.py").read_text())
    call = next(n.value for n in tree.body if isinstance(n, ast.Assign) and n.targets[0].id == "app")
    assert call.func.id == "App" and call.args[0].value == "app.py"
    keywords = {k.arg: ast.unparse(k.value) for k in call.keywords}
    assert keywords == {"middleware": "[Middleware(SharedServerMiddleware)]", "lifespan": "server_lifespan"}
