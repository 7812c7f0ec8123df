"""Exact references for agents and tests: the Connect Four solver (``connect_four``), the
Tic-Tac-Toe oracle (``tic_tac_toe``), Pascal Pons' benchmark positions with their exact
scores (``pons``) and the registry of every perfect-play set, his and ours
(``benchmark_sets``)."""
