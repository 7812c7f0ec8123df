r"""Load on the play server: many people playing the shipped Connect Four agent at once, a
program per scenario.

    python -m experiments.stress.server_load.load [--sessions=50] [--seconds=60]
    python -m experiments.stress.server_load.new_strength [--joiners=20]
    python -m experiments.stress.server_load.mixed [--strengths=0,8,16,32,64]
    python -m experiments.stress.server_load.warm_start

Each starts ``experiments.serve`` on loopback and simulated players
(``experiments/stress/simulated_players.py``) who play random legal moves against
``az:pretrained`` (Connect Four 6x7) as fast as the answers come. A move is one request
(the player's move and the agent's reply); an error is any answer but 200, or a failed
request (must be 0). Each prints its results, then them as one line of JSON.

Servers use the per-user compilation cache unless ``--compilation_cache_dir`` or
``--nocompilation_cache`` is given (passed on to them); ``warm_start`` always uses its own.
"""
