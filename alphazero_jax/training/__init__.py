"""AlphaZero training: self-play (``selfplay``) made of parts (``budgets``, ``openings``),
the replay memory (``replay``), the stored targets and loss terms (``targets``, ``losses``),
the optimiser step (``learner``), an iteration's two halves (``iteration``, with
``run_selfplay`` and ``mixed``), and the loop ``train.train_and_evaluate`` with its
session, logging and evaluation during training; TD-MCTS's training (``tdmcts``); and the
plots of runs and evaluations (``plots``). The config is read by ``configs.plan``."""
