"""How strong an agent is: matches (``arena``), round robins (``tournament``), Elo ratings
(``elo``), mistakes against perfect play on Connect Four sets, Pons' and ours (``perfect_play``) and
their plots (``plots``)."""
