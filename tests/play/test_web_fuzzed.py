"""Random bodies against every route of the play server's JSON API (hypothesis).

Whatever the body (any JSON value, near-valid requests, bytes that are not JSON), a route
answers 2xx, or a 4xx with ``{"error": "..."}`` that leaves the session as it was (no new
session for a refused ``POST /api/sessions``); never a 5xx, and the server goes on
answering. A 2xx of a route that only reads changes nothing either.

One server serves every example. The sessions are Tic-Tac-Toe against ``random`` (a search
that compiles in a moment). New sessions name agents that build in a moment (not the
shipped networks, whose first load per game compiles its network), and where the agent
would move at once, ``random`` on the default board: no example waits for a compile of
seconds.
"""

import json
import re
import warnings

import pytest
from fuzz_text import NUMBER_TEXT
from game_names import DEFAULT
from hypothesis import given, settings
from hypothesis import strategies as st

from alphazero_jax import games
from alphazero_jax.agents import registry
from alphazero_jax.play.openapi import route_table
from alphazero_jax.play.routes import create_app
from alphazero_jax.play.server_config import ServerConfig

with warnings.catch_warnings():  # newer Starlette prefers httpx2 to httpx; both work
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

# Inputs tried per route.
NUM_BODY_ROUTE = 120  # the two routes that read a body
NUM_OTHER_ROUTE = 25  # routes that ignore their body: it must not matter

SESSION = {"game": "tic_tac_toe", "agent": "random", "moves": "b2 a1"}

CONFIG = ServerConfig(batch_sizes=(1,), max_sessions=50)
APP = create_app(CONFIG)
# The routes that change nothing though not GETs: a hint searches and moves no piece.
READS_ONLY = {("POST", "/api/sessions/{session_id}/hint")}
# (method, path, reads only): every route of the app, so that a new one is fuzzed too.
ROUTES = [
    (method, path, method == "GET" or (method, path) in READS_ONLY)
    for method, path, _ in route_table(APP)
]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=8,
)

AGENTS = ["random", "greedy", "minimax:1", "mcts:7", "greedy:path", "minimax:0", "solver"]
AGENTS += ["az:pretrained:-1", "az:pretrained:x", "mcts:5000"]
# A strength of any number as text (thousands of digits, other digits, signs) that the
# server refuses or plays at once: az:pretrained only with a number it refuses.
STRENGTHS = st.builds(
    lambda kind, number: f"{kind}:{number}",
    st.sampled_from(["mcts", "minimax", "az:pretrained"]),
    NUMBER_TEXT,
).filter(
    lambda spec: (
        not spec.startswith("az:")
        or registry.read_count(spec.rpartition(":")[2], low=0, high=1024) is None
    )
)
SETTINGS = ["rows", "cols", "connect", "size", "walls", "legal_plane", "nope"]
MOVE_TEXT = st.text(alphabet="abcd0123456789 ,pasABhv", max_size=12)


def _or_junk(strategy):
    return strategy | json_values


@st.composite
def new_session_bodies(draw):
    """Near-valid ``POST /api/sessions`` bodies: each field often right, sometimes wrong,
    sometimes missing (the agent only where the game is refused: its default is a shipped
    network), sometimes an extra one. Where the agent would open the game at once,
    ``random`` on the default board."""
    body = {}
    human = draw(st.sampled_from(["first", "none", "second", "nobody", None]))
    if human is not None:
        body["human"] = human
    fields = {
        "game": _or_junk(st.sampled_from([*DEFAULT, "chess"])),  # pgx's others: seconds to make
        "settings": _or_junk(
            st.dictionaries(
                st.sampled_from(SETTINGS), _or_junk(st.integers(-2, 12) | LONG_INTEGERS), max_size=3
            )
        ),
        "agent": _or_junk(st.sampled_from(AGENTS) | st.text(max_size=16) | STRENGTHS),
        "simulations": _or_junk(st.integers(-5, 2000) | LONG_INTEGERS),
        "moves": _or_junk(MOVE_TEXT),
        "extra": json_values,
    }
    for name, strategy in fields.items():
        if draw(st.booleans()) and (name != "extra" or draw(st.booleans())):
            body[name] = draw(strategy)
    if body.get("game", "tic_tac_toe") in games.available() and "agent" not in body:
        body["agent"] = draw(st.sampled_from(AGENTS))
    if human == "second":  # the agent moves first: the search the sessions use
        body.update(game="tic_tac_toe", agent="random")
        body.pop("settings", None)
        body.pop("simulations", None)
    return body


def move_bodies():
    legal_or_near = st.sampled_from(["a3", "c3", "b2", "pass", "4", "a1h"]) | MOVE_TEXT
    return st.fixed_dictionaries({"move": _or_junk(legal_or_near)}) | st.dictionaries(
        st.sampled_from(["move", "moves", "extra"]), json_values, max_size=2
    )


class Digits(str):
    """A JSON number of any length, written as it is: ``json.dumps`` refuses to write an int
    of more than 4,300 digits."""


# JSON integers of thousands of digits, signed, which Python's JSON reader refuses to read.
LONG_INTEGERS = st.builds(
    lambda sign, digits: Digits(sign + "1" * digits),
    st.sampled_from(["", "-"]),
    st.integers(4000, 6000),
)
_DIGITS = re.compile(r'"\\u0000(-?[0-9]+)"')


def raw(value) -> bytes:
    """A body as JSON text (NaN and infinities as Python writes them: not JSON), its
    ``Digits`` as numbers."""

    def marked(item):
        if isinstance(item, Digits):
            return "\u0000" + item
        if isinstance(item, dict):
            return {key: marked(v) for key, v in item.items()}
        if isinstance(item, list):
            return [marked(v) for v in item]
        return item

    return _DIGITS.sub(lambda m: m.group(1), json.dumps(marked(value))).encode()


BODIES = {
    "/api/sessions": new_session_bodies().map(raw),
    "/api/sessions/{session_id}/moves": move_bodies().map(raw),
}
ANY_BODY = json_values.map(raw) | st.binary(max_size=40) | st.just(b"")


@pytest.fixture(scope="module")
def client():
    with TestClient(APP) as c:
        yield c


def _session(client, human: str) -> dict:
    view = client.post("/api/sessions", json={**SESSION, "human": human}).json()
    return client.get(f"/api/sessions/{view['id']}").json()


def _check(client, method: str, path: str, reads_only: bool, body: bytes, human: str) -> None:
    view = None if "{session_id}" not in path else _session(client, human)
    url = path if view is None else path.format(session_id=view["id"])
    held = set(client.app.state.server.sessions)
    headers = {"content-type": "application/json"}
    response = client.request(method, url, content=body, headers=headers)
    assert response.status_code < 500, response.text
    refused = response.status_code >= 400
    if refused:
        assert isinstance(response.json()["error"], str) and response.json()["error"]
    if path == "/api/sessions":
        now = set(client.app.state.server.sessions)
        assert len(now - held) == (0 if refused else 1)
        for session_id in now - held:
            client.delete(f"/api/sessions/{session_id}")
    elif view is not None and (refused or reads_only):
        assert client.get(f"/api/sessions/{view['id']}").json() == view
    if view is not None:
        client.delete(f"/api/sessions/{view['id']}")


@pytest.mark.parametrize(("method", "path", "reads_only"), [r for r in ROUTES if r[1] in BODIES])
@settings(max_examples=NUM_BODY_ROUTE, deadline=None)
@given(data=st.data(), human=st.sampled_from(["first", "none"]))
def test_any_body_of_a_route_that_reads_one(client, method, path, reads_only, data, human):
    _check(client, method, path, reads_only, data.draw(BODIES[path], label="body"), human)


@pytest.mark.parametrize(
    ("method", "path", "reads_only"), [r for r in ROUTES if r[1] not in BODIES]
)
@settings(max_examples=NUM_OTHER_ROUTE, deadline=None)
@given(body=ANY_BODY, human=st.sampled_from(["first", "none"]))
def test_any_body_of_a_route_that_reads_none(client, method, path, reads_only, body, human):
    _check(client, method, path, reads_only, body, human)


def test_every_route_of_the_app_is_fuzzed_and_each_that_reads_a_body_with_bodies_of_its_own():
    paths = APP.openapi()["paths"]
    assert len(ROUTES) == sum(len(operations) for operations in paths.values()) >= 10
    reading = {
        p for p, operations in paths.items() for o in operations.values() if "requestBody" in o
    }
    assert reading == set(BODIES)


def test_long_json_integers_are_written_as_numbers():
    body = raw({"simulations": Digits("-" + "1" * 4500), "settings": {"rows": Digits("12")}})
    assert body == b'{"simulations": -' + b"1" * 4500 + b', "settings": {"rows": 12}}'


def test_the_server_still_answers_and_holds_no_session(client):
    assert client.get("/api/stats").status_code == 200
    assert client.app.state.server.sessions == {}
