"""Each built-in game's training presets, ``fn(config)`` by name, which its ``GameRecord``
holds (``games.record(name).presets``) and ``configs.get_config(game, preset)`` applies to
every setting's default. A preset's docstring says what it is for and what it costs.

They sit below the games (they import nothing of the library), so that a game's record can
hold them; a game of one's own passes its own in its record, or has the generic presets
sized from its longest game (``configs.generic``).
"""
