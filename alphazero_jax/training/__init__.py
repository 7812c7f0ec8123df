"""AlphaZero training: self-play (``selfplay``), the replay memory (``replay``), the
optimiser step (``learner``), the config's schema (``config_schema``), and the loop
``train.train_and_evaluate`` with its session, logging and evaluation during training;
TD-MCTS's training (``tdmcts``); and the plots of runs and evaluations (``plots``)."""
