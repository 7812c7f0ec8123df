"""How strong an agent is: matches (``arena``), round robins (``tournament``), Elo ratings
(``elo``) and mistakes against perfect play on Connect Four sets, Pons' and ours
(``perfect_play``). Their plots are ``training.plots``."""
