"""The play server against its own OpenAPI schema: schemathesis, in process, every check.

Schemathesis (``schemathesis run --checks all``, as a test) generates requests from
``/api/openapi.json`` and checks each answer: no 5xx, only declared statuses, each body as
declared, a request the schema admits is played and one it refuses is refused, 405 with
``Allow``, and, following the links it infers between routes (a new session's ``id`` to
its moves), that a deleted session is gone. Every check runs; none is left out.

Bounded examples: the coverage phase sends each boundary and malformed value the schema
has (some 1,700 requests, 460 of them new games at settings of their own: half a minute on
two cores); the fuzzing phase ``MAX_EXAMPLES`` per route; the stateful run
``STATEFUL_EXAMPLES`` sequences.

The server: no warm-up, the ``random`` agent only (its searches compile in a moment), one
batch size, room for every session and agent the run makes, and a small solver budget.
The one rule the schema cannot state is mapped, not skipped: a body the schema admits keeps
its ``moves`` (a new game's move list, a session's move) legal (``_legal``).
"""

from __future__ import annotations

import itertools
import re
import sys

import jsonschema_rs
import pydantic
import pytest
import schemathesis
from game_names import DEFAULT, PGX, PGX_CHEAPEST
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from alphazero_jax import games
from alphazero_jax.games import records
from alphazero_jax.play import contract
from alphazero_jax.play.catalogue import new_session_model, served_spec
from alphazero_jax.play.routes import create_app
from alphazero_jax.play.server_config import ServerConfig, interactive_kinds

MAX_EXAMPLES = 15  # per route, fuzzing phase
STATEFUL_EXAMPLES = 10  # scenarios of the stateful run, each a few linked requests

CONFIG = ServerConfig(
    compile_wait=5.0,  # as alphazero-serve: a longer compile is a 429 the schema declares
    warm_up=False,
    batch_sizes=(1,),
    agent_kinds=("random",),
    max_sessions=100_000,
    max_agents=100_000,
    verdict_nodes=10_000,
)
SCHEMATHESIS = {"generation": {"max-examples": MAX_EXAMPLES}, "request-timeout": 60}


# The app, and its schema as /api/openapi.json serves it. Its lifespan starts with a test's
# first request and ends with the test (schemathesis's pytest plugin): each test starts the
# server afresh.
APP = create_app(CONFIG)
schema = schemathesis.openapi.from_dict(
    APP.openapi(), config=schemathesis.Config.from_dict(SCHEMATHESIS)
)
schema.app = APP  # requests go to the app in process, as schemathesis.openapi.from_asgi's do


def _legal(case, app) -> None:
    """A body the schema admits, with its moves made legal: a new game starts from the
    start; a move is one of the session's legal moves (when it has one)."""
    if case.meta is None or not case.meta.generation.mode.is_positive:
        return
    if not isinstance(case.body, dict):
        return
    if case.operation.path == "/api/sessions" and "moves" in case.body:
        case.body["moves"] = ""
    if case.operation.path.endswith("/moves"):
        entry = app.state.server.sessions.get(case.path_parameters.get("session_id"))
        legal = [] if entry is None else entry.session.legal_moves()
        if legal and "move" in case.body:
            case.body["move"] = legal[len(case.body["move"]) % len(legal)]


@pytest.mark.long
@schema.parametrize()
def test_every_route_answers_as_its_schema_says(case):
    _legal(case, APP)
    case.call_and_validate()


def test_the_schema_is_the_one_the_server_serves():
    from schemathesis.python import asgi

    with asgi.get_client(APP) as client:
        assert client.get("/api/openapi.json").json() == APP.openapi()


def _cheap_game(case) -> None:
    """A new game of one of pgx's games outside the default suite's (seconds to make and to
    compile each) is one of pgx's cheapest: its settings and agents are the same."""
    if isinstance(case.body, dict) and case.body.get("game") in set(PGX) - set(DEFAULT):
        case.body["game"] = PGX_CHEAPEST[0]


def test_sequences_of_linked_requests_answer_as_the_schema_says():
    class Linked(schema.as_state_machine()):
        def before_call(self, case):
            _legal(case, APP)
            _cheap_game(case)

    Linked.run(
        settings=settings(
            max_examples=STATEFUL_EXAMPLES,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            stateful_step_count=8,
        )
    )


def test_every_check_runs():
    from schemathesis.checks import CHECKS, load_all_checks

    load_all_checks()
    config = schema.config.checks_config_for()
    names = CHECKS.get_all_names()
    assert len(names) >= 14 and [n for n in names if not config.get_by_name(name=n).enabled] == []


def test_the_spaces_an_agent_spec_may_have_are_those_strip_removes():
    pattern = re.compile(f"[{contract.SPACES}]")
    spaces = {chr(code) for code in range(sys.maxunicode + 1) if chr(code).isspace()}
    assert {chr(c) for c in range(sys.maxunicode + 1) if pattern.fullmatch(chr(c))} == spaces


@pytest.mark.parametrize(("low", "high"), [(0, 0), (0, 1024), (1, 6), (1, 1024), (3, 250)])
def test_count_patterns_match_the_integers_in_range_and_no_others(low, high):
    pattern = re.compile(contract.count_pattern(low, high))
    for number in range(2000):
        for text in (str(number), "00" + str(number)):
            assert (pattern.fullmatch(text) is not None) == (low <= number <= high), text
    assert pattern.fullmatch("") is None and pattern.fullmatch("+1") is None


@pytest.mark.parametrize("name", games.available())
def test_the_settings_the_schema_admits_are_those_make_accepts(name):
    # Every combination of settings, each from one below its bounds to one above.
    bounds = games.settings_of(name)
    defaults = {key: bound["default"] for key, bound in bounds.items()}
    regions = contract.setting_regions(name)
    ranges = [range(b["min"] - 1, b["max"] + 2) for b in bounds.values()]
    for values in itertools.product(*ranges):
        settings = dict(zip(bounds, values))
        assert contract.admits(regions, settings, defaults) == _accepted(name, settings), settings


def _accepted(name: str, settings: dict[str, int]) -> bool:
    try:
        games.make(name, **settings)
    except ValueError:
        return False
    return True


SPECS = ["mcts", " mcts:5\t", "mcts:", "mcts:0", "mcts:1024", "mcts:1025", "mcts:007", "mcts:x"]
SPECS += ["minimax:6", "minimax:7", "az:pretrained", "az:pretrained:0", "az:pretrained:x"]
SPECS += ["solver", "solver:1", "greedy:path", "greedy:flips", "greedy", "greedy:", "random:3"]
SPECS += ["az:my_run", "", "MCTS", "mcts 5", "\u2003random\u2003", "\ufeffrandom"]


@pytest.mark.parametrize("name", games.available())
def test_the_default_servers_schema_admits_the_agents_it_plays(name):
    # Every agent kind, strength and simulations field against the settings each plays at
    # (the shipped networks' and the solver's) and others: the schema admits a body exactly
    # where the server's own checks (``NewSession``, ``games.make``, ``served_spec``) do.
    config = ServerConfig()
    schema_of_bodies = new_session_model(config).model_json_schema()
    validator = jsonschema_rs.Draft202012Validator(schema_of_bodies)
    kinds = [k for k in interactive_kinds() if k.only_settings is not None]
    shipped = [s for k in kinds if k.plays(name) for s in k.only_settings(name)]
    other = {key: bound["min"] for key, bound in games.settings_of(name).items()}
    for at, spec, simulations in itertools.product(
        [{}, *shipped, other], SPECS, [None, 0, 1, 1024, 1025, 2.0, True]
    ):
        body = {"game": name, "settings": at, "agent": spec, "simulations": simulations}
        assert validator.is_valid(body) == _served(config, body), body
    assert validator.is_valid({"game": name}) == _served(config, {"game": name})


def _served(config: ServerConfig, body: dict) -> bool:
    try:
        request = contract.NewSession.model_validate(body)
        game = games.make(request.game, **request.settings)
        settings = dict(game.settings)
        served_spec(config, request.agent, request.simulations, game=game.name, settings=settings)
    except (pydantic.ValidationError, ValueError):
        return False
    return True


# Boards as large as each game allows, so that every file and rank its notation has is
# on one of them.
LARGEST = {
    "connect_four": [{}, {"rows": 10, "cols": 10, "connect": 4}],
    "othello": [{}, {"size": 16}],
    "quoridor": [{}, {"size": 5, "walls": 3}],
    "tic_tac_toe": [{}, {"rows": 10, "cols": 10}],
}
NOTATION_TEXT = st.text(alphabet="abcdijpPASshvHV\u212a0123456789 ,\t\u2003\u00b2", max_size=10)


@pytest.mark.parametrize("name", sorted(LARGEST))
def test_every_text_a_game_reads_matches_its_notation_pattern(name):
    # The published patterns may admit more than a game reads (a move not on this board is
    # a 409), never less: a text refused by the schema must be refused by the server.
    record = games.record(name)
    built = [games.make(name, **settings) for settings in LARGEST[name]]

    def read(game, text):
        try:
            return game.actions_from_text(text)
        except ValueError:
            return None

    written = [g.actions_to_text([a]) for g in built for a in range(g.num_actions) if _named(g, a)]
    for text in written:
        assert records.matches(record.one_move_pattern(), text), text
        assert records.matches(record.moves_pattern(), f"{text} {text}"), text

    @settings(max_examples=300, deadline=None)
    @given(st.sampled_from(written) | NOTATION_TEXT, st.sampled_from(written) | NOTATION_TEXT)
    def check(first, second):
        for text in (first, first + second, f"{first} {second}"):
            for game in built:
                actions = read(game, text)
                if actions is not None:
                    assert records.matches(record.moves_pattern(), text), text
                if actions is not None and len(actions) == 1:
                    assert records.matches(record.one_move_pattern(), text.strip()), text
                    assert contract.is_move_text(text.strip()), text

    check()


def _named(game, action) -> bool:
    try:
        game.action_to_text(action)
    except ValueError:  # a Quoridor pawn action off the board at the start
        return False
    return True
