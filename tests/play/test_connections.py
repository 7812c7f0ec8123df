"""Connections (``play/connections.py``): a slow or silent client, or slow request headers,
hold up no one."""

from __future__ import annotations

import contextlib
import socket
import threading
import time

import httpx

from alphazero_jax.play.routes import create_app, uvicorn_options
from alphazero_jax.play.server_config import ServerConfig


@contextlib.contextmanager
def _serving(app):
    """``app`` served by uvicorn on a loopback port (in a thread), with the options
    alphazero-serve passes; yields the port."""
    import uvicorn

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, log_level="error", **uvicorn_options(app)
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        for _ in range(600):
            if server.started:
                break
            time.sleep(0.05)
        yield port
    finally:
        server.should_exit = True
        thread.join(timeout=30)


def test_a_slow_or_silent_client_holds_up_no_one():
    app = create_app(ServerConfig(body_seconds=0.5))
    with _serving(app) as port:
        # One client sends half a body and waits; another sends requests and never reads.
        slow = socket.create_connection(("127.0.0.1", port))
        slow.sendall(
            b"POST /api/sessions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b'Content-Length: 100\r\n\r\n{"game": '
        )
        silent = socket.create_connection(("127.0.0.1", port))
        silent.sendall(b"GET /api/games HTTP/1.1\r\nHost: x\r\n\r\n" * 50)
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=120) as client:
            body = {"game": "tic_tac_toe", "agent": "random"}
            view = client.post("/api/sessions", json=body).json()
            view = client.post(f"/api/sessions/{view['id']}/moves", json={"move": "b2"}).json()
            assert view["moves"].startswith("b2 ") and len(view["reply"]) == 1
        slow.settimeout(60)
        answer = slow.recv(4096).decode()
        assert answer.startswith("HTTP/1.1 408") and "did not arrive within 0.5 s" in answer
        slow.close()
        silent.close()


def test_slow_request_headers_get_408_and_hold_up_no_one():
    # A client dribbles a request's headers, a byte every 50 ms (uvicorn alone would wait for
    # hours: the headers stay under its 16 KiB bound); 0.5 s after it connected it gets 408
    # and its connection closes. A request that the app takes longer to answer (a compile),
    # and the next on its connection, are not cut short.
    app = create_app(ServerConfig(header_seconds=0.5, batch_sizes=(1,)))
    with _serving(app) as port:
        dribbling = socket.create_connection(("127.0.0.1", port))
        dribbling.setblocking(False)
        started, answer = time.monotonic(), b""
        for byte in b"GET /api/games HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 200:
            try:
                dribbling.send(bytes([byte]))
                answer += dribbling.recv(4096)
            except BlockingIOError:  # nothing to read yet
                pass
            except OSError:  # closed, and reset by the bytes sent after
                break
            if answer:
                break
            time.sleep(0.05)
        waited = time.monotonic() - started
        dribbling.close()
        assert answer.startswith(b"HTTP/1.1 408"), answer
        assert b"headers did not arrive within 0.5 s" in answer and 0.5 <= waited < 5
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=120) as client:
            body = {"game": "tic_tac_toe", "agent": "random", "human": "second"}
            view = client.post("/api/sessions", json=body).json()  # compiles: a second or so
            time.sleep(0.2)  # the same connection, idle a moment
            assert client.get(f"/api/sessions/{view['id']}").json()["moves"] == view["moves"]
