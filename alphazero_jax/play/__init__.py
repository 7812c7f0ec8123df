"""Playing agents: a game between a person and an agent kept on the host (``session``) and
its front end in a terminal (``terminal``)."""
