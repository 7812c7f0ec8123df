"""What a play server may hold and do (``ServerConfig``), and the agents it may play.

What a client can make the server hold or do is bounded:

- sessions: at most ``max_sessions`` (503 beyond, checked before anything is built), each
  dropped after ``idle_seconds`` without a request;
- agents: a strength of at most ``max_simulations`` simulations or ``max_depth`` plies; at
  most ``max_agents`` agents held (each a game's settings, a kind and a strength: the
  settings x strengths a server compiles for), each with one compiled search per batch
  size; an idle one makes room for a new one, else 503 (``agent_pool.AgentPool``);
- compiles: each client has new agents built at ``new_agents_per_minute`` after
  ``new_agents_burst`` at once; beyond, its request waits its turn (``NewAgentTurns``); a
  request waits at most ``compile_wait`` for its turn and for its agent's first compile
  (429 beyond, with ``Retry-After``; a compile goes on);
- requests: headers within ``header_seconds`` and bodies within ``body_seconds`` (408),
  bodies of at most ``max_body_bytes`` (413), headers of at most 16 KiB (uvicorn);
- verdicts: ``verdict_nodes`` of the solver's search per request, on one thread.
"""

from __future__ import annotations

import dataclasses

from alphazero_jax import agents
from alphazero_jax.play import batching


def interactive_kinds() -> tuple[agents.AgentKind, ...]:
    """The agents a server may play, strongest first: the interactive registered kinds (no
    file of the user's, a move within seconds); ``ServerConfig.agent_kinds`` picks some. The
    page offers them in this order and picks the first one usable at the chosen settings."""
    return tuple(kind for kind in reversed(agents.kinds()) if kind.interactive)


@dataclasses.dataclass(frozen=True)
class ServerConfig:
    """How the server bounds its work.

    Attributes:
      max_sessions: sessions kept at once; a new one beyond is refused (503).
      idle_seconds: a session with no request for this long is dropped.
      max_body_bytes: larger request bodies are refused (413).
      batch_sizes: the batch sizes each agent compiles for, ascending; ``(1,)`` searches
        one position at a time; None: ``batching.default_sizes()`` (up to 8 on a CPU, 64
        on an accelerator).
      batch_wait: seconds a search waits for others to join its batch.
      verdict_nodes: the solver's node budget for one verdict request (some 10 million a
        second, on a thread of its own that holds up no other request); beyond it the
        verdicts are reported unknown. The opening book, where one ships, costs none; the
        default answers every 6x7 position we tried (docs/play.md), the slowest in 20-odd s.
      max_simulations, max_depth: the strongest network/MCTS search and alpha-beta depth a
        client may ask for.
      warm_up: compile the shipped agents' searches (at their default strength, every
        batch size) when the server starts, so that players do not wait for compiles.
      max_agents: agents (a game's settings, an agent and its strength) held at once with
        their compiled searches; an idle one makes room for a new one.
      body_seconds: a request body that has not arrived in this time is refused (408).
      new_agents_per_minute, new_agents_burst: each client (by its address) may have
        ``new_agents_burst`` new agents (a game's settings or a strength no one plays now:
        compiles) built at once, then one every ``60 / new_agents_per_minute`` s; a client
        that asks for more waits for its turn, and no other client waits for it
        (``agent_pool.NewAgentTurns``). None (the library's default): no bound;
        ``alphazero-serve`` bounds it to 6 a minute. Behind a proxy, its clients share one.
      header_seconds: a request's headers that have not arrived in this time (after the
        connection opened, or the answer before) get 408 and the connection closes
        (``connections.py``: uvicorn alone never times them out; ``uvicorn_options``).
      agent_kinds: the kinds of ``interactive_kinds()`` the server plays (e.g. ``("random",
        "greedy")``); None: every one.
      compile_wait: seconds a request waits for its agent's first compile, or for its
        client's turn to have a new agent built; past them it is refused with 429 and
        ``Retry-After`` (a compile goes on, and the request asked again plays at once
        when it is done). None (the library's default): it
        waits for the compile; ``alphazero-serve`` waits 5 s.
    """

    max_sessions: int = 500
    idle_seconds: float = 1800.0
    max_body_bytes: int = 16_384
    batch_sizes: tuple[int, ...] | None = None
    batch_wait: float = 0.002
    verdict_nodes: int = 300_000_000
    max_simulations: int = 1024
    max_depth: int = 6
    warm_up: bool = False
    max_agents: int = 32
    body_seconds: float = 10.0
    header_seconds: float = 10.0
    new_agents_per_minute: float | None = None
    new_agents_burst: int = 3
    agent_kinds: tuple[str, ...] | None = None
    compile_wait: float | None = None

    def __post_init__(self):
        if self.batch_sizes is None:
            object.__setattr__(self, "batch_sizes", batching.default_sizes())
        sizes = self.batch_sizes
        if not sizes or list(sizes) != sorted(set(sizes)) or sizes[0] < 1:
            raise ValueError(f"batch_sizes: expected ascending integers >= 1, got {sizes!r}.")
        if self.max_sessions < 1 or self.idle_seconds <= 0 or self.max_body_bytes < 1024:
            raise ValueError(
                "Expected max_sessions >= 1, idle_seconds > 0 and max_body_bytes >= 1024, got "
                f"{self.max_sessions}, {self.idle_seconds}, {self.max_body_bytes}."
            )
        if self.compile_wait is not None and self.compile_wait < 0:
            raise ValueError(
                f"compile_wait: expected seconds >= 0 or None, got {self.compile_wait}."
            )
        if self.max_agents < 1 or self.body_seconds <= 0 or self.header_seconds <= 0:
            raise ValueError(
                "Expected max_agents >= 1, body_seconds > 0 and header_seconds > 0, got "
                f"{self.max_agents}, {self.body_seconds}, {self.header_seconds}."
            )
        rate, burst = self.new_agents_per_minute, self.new_agents_burst
        if (rate is not None and rate <= 0) or burst < 1:
            raise ValueError(
                "Expected new_agents_per_minute > 0 (or None) and new_agents_burst >= 1, got "
                f"{rate}, {burst}."
            )
        known = [kind.kind for kind in interactive_kinds()]
        if self.agent_kinds is not None and not set(self.agent_kinds) <= set(known):
            raise ValueError(f"agent_kinds: expected some of {known}, got {self.agent_kinds!r}.")
