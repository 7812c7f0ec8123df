"""AlphaZero for two-player board games in JAX and Flax.

Import the modules you use (``from alphazero_jax import games, agents``); importing the
package itself loads nothing else. ``__version__`` is the installed distribution's version,
which pyproject.toml sets (its one place); the docs' API page says which modules are public
and what a version number promises.
"""

import importlib.metadata

try:
    __version__ = importlib.metadata.version("alphazero_jax")
except importlib.metadata.PackageNotFoundError:  # imported from a checkout, not installed
    __version__ = "unknown"
