"""How strong an agent is: matches (``arena``), round robins (``tournament``), Elo ratings
(``elo``), mistakes against perfect play on Pons' Connect Four sets (``perfect_play``) and
their plots (``plots``)."""
