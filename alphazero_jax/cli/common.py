"""What the entry points share: the start of ``main`` (with the compilation cache), how flags
are read (``run``: ``--help`` ends with status 0, a bad flag in one line, a flag's old name
with a notice), the flags every program names alike (``--simulations``), and game settings
and play-time search settings on the command line.

The programs' vocabulary: a training run's directory is ``--workdir`` (several: a list),
an output folder ``--output``, agent specs ``--agents`` (``--agent`` for one), and
``--simulations`` is ``SIMULATIONS_HELP`` everywhere. A renamed flag keeps its old name
until ``OLD_NAMES_GO_IN`` (``define_old_name``)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import NoReturn

from absl import app, flags, logging

from alphazero_jax.cli import compilation_cache

flags.disclaim_key_flags()  # a flag defined below belongs to the program that asks for it


def begin(argv: list[str]) -> None:
    """Refuses stray arguments, shows only warnings unless ``--verbosity`` was given (orbax
    and JAX log much at info level) and sets up the persistent compilation cache
    (``compilation_cache.setup``)."""
    if len(argv) > 1:
        fail(f"unexpected arguments {argv[1:]}; flags are --name=value.")
    quiet()
    compilation_cache.setup()


def quiet() -> None:
    """Unless ``--verbosity`` was given: only warnings, and none of orbax's own error logs
    (an unreadable checkpoint is reported by our code, in one line, with what to do)."""
    if flags.FLAGS["verbosity"].present:
        return
    logging.set_verbosity(logging.WARNING)
    logging.get_absl_handler().addFilter(
        lambda record: not (f"{os.sep}orbax{os.sep}" in record.pathname and record.levelno < 50)
    )


def fail(message: object, status: int = 2) -> NoReturn:
    """Ends the program with ``error: <message>`` on one line and ``status``."""
    print(f"error: {message}", file=sys.stderr)
    sys.exit(status)


def define_game_settings() -> flags.FlagHolder[str]:
    """``--game_settings`` (read it with ``parse_settings``), for a program that picks a game."""
    return flags.DEFINE_string("game_settings", "", "Game settings, e.g. rows=5,cols=6.")


def parse_settings(text: str) -> dict[str, int]:
    """``{"rows": 5, "cols": 6}`` of ``"rows=5,cols=6"``; "" gives ``{}``.

    Raises:
      ValueError: an item that is not ``name=<int>``.
    """
    settings = {}
    for item in filter(None, text.split(",")):
        name, _, value = item.partition("=")
        if not name.strip() or not value.strip().lstrip("-").isdigit():
            raise ValueError(f"--game_settings: expected name=<int>,..., got {item!r}.")
        settings[name.strip()] = int(value)
    return settings


def run(main: Callable[[list[str]], None], module: str, **kwargs) -> None:
    """``app.run(main)`` for an entry point whose flags ``module`` defines, its flags read by
    ``parse_flags`` (or the ``flags_parser`` given, which calls it). Its ``--help`` shows the
    module's docstring and lists its flags also when it starts as an installed console
    script (absl shows those of the program's own file, which is then the script's)."""
    for flag in flags.FLAGS.get_key_flags_for_module(module):
        flags.FLAGS.register_key_flag_for_module(sys.argv[0], flag)
    script = sys.modules["__main__"]
    if script.__doc__ is None and module in sys.modules:
        script.__doc__ = sys.modules[module].__doc__
    kwargs.setdefault("flags_parser", parse_flags)
    app.run(main, **kwargs)


def parse_flags(argv: list[str]) -> list[str]:
    """Reads the flags in ``argv`` as absl does, but ``--help``, ``--helpfull`` and
    ``--helpxml`` end with status 0 (absl's with 1), a bad flag ends the program in one line
    (status 2), and each old name given (``define_old_name``) gets its notice.

    Returns:
      The arguments that are not flags, the program's name first.
    """
    try:
        rest = flags.FLAGS(argv)
    except SystemExit as stop:  # only absl's help flags end the parse: status 1 after the help
        sys.exit(0 if stop.code == 1 else stop.code)
    except flags.Error as error:
        fail(one_line(error))
    _read_old_names()
    return rest


def one_line(error: object) -> str:
    """The first and the last line of a long message (a config file's error arrives with
    its traceback inside)."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()] or [repr(error)]
    return " ".join(dict.fromkeys([lines[0], lines[-1]]))


def notice(message: str) -> None:
    """``notice: <message>`` on one line of stderr: what goes on working, but not for long."""
    print(f"notice: {message}", file=sys.stderr, flush=True)


# Flags renamed to the shared vocabulary keep their old names until this release.
OLD_NAMES_GO_IN = "0.3.0"
_OLD_NAMES: dict[str, str] = {}  # old name -> new name, of the flags this program defines


def define_old_name(old: str, new: str) -> None:
    """Keeps ``--old``, the name the program's flag ``--new`` had before, working until
    ``OLD_NAMES_GO_IN``: it sets ``--new`` and ``parse_flags`` prints a notice naming
    ``--new``; the old name and the new one given together end the program in one line.
    Call it after ``--new`` is defined."""
    flags.DEFINE_alias(old, new)
    flags.FLAGS[old].help = f"The old name of --{new}, read until {OLD_NAMES_GO_IN}."
    _OLD_NAMES[old] = new


def _read_old_names() -> None:
    """A notice for each old name given; one line and status 2 for an old name given with
    its new one (the alias sets the new flag too, so the new one counts both)."""
    for old, new in _OLD_NAMES.items():
        given = flags.FLAGS[old].present
        if not given:
            continue
        if flags.FLAGS[new].present > given:
            fail(f"--{old} is the old name of --{new}; give only --{new}.")
        notice(f"--{old} is now --{new}; the old name goes in {OLD_NAMES_GO_IN}.")


# --simulations: one meaning in every program.

SIMULATIONS_HELP = (
    "Search simulations a network plays with: -1 the run's own search (its "
    "config.search.num_simulations), 0 its raw policy (no search), N > 0 a search of N."
)


def define_simulations(extra: str = "") -> flags.FlagHolder[int]:
    """``--simulations`` (``SIMULATIONS_HELP``, then ``extra``), -1 by default."""
    help_text = " ".join(filter(None, (SIMULATIONS_HELP, extra)))
    return flags.DEFINE_integer("simulations", -1, help_text, lower_bound=-1)


OLD_ZERO_HELP = (
    f"Until {OLD_NAMES_GO_IN}, 0 here still means the run's own search (its old meaning), "
    "with a notice."
)


def read_old_zero(counts: list[int]) -> list[int]:
    """``counts`` of ``--simulations`` in a program where 0 meant the run's own search (the
    learning proofs): 0 is read as -1, with a notice, until ``OLD_NAMES_GO_IN``, when 0
    becomes the raw policy there too (``OLD_ZERO_HELP`` says so in the flag's help)."""
    if 0 not in counts:
        return counts
    notice(
        f"--simulations=0 for the run's own search is now --simulations=-1; 0 is the raw "
        f"policy from {OLD_NAMES_GO_IN}."
    )
    return [-1 if count == 0 else count for count in counts]


def writable_directory(path: str, flag: str) -> str:
    """Creates ``path`` if needed and checks that a file can be written there, before any
    work is done; ends the program in one line naming ``--flag`` otherwise."""
    probe = os.path.join(path, ".writable")
    try:
        os.makedirs(path, exist_ok=True)
        with open(probe, "w") as file:
            file.write("ok")
        os.remove(probe)
    except OSError as error:
        fail(f"--{flag}={path}: cannot write there ({error.strerror or error}); choose another.")
    return path


# Play-time search settings on the command line.


def search_values(key: str, texts: list[str], own: dict, flag: str) -> list:
    """Each of ``texts`` as a value of ``config.search.<key>``, of the type of the run's own
    setting in ``own`` (its completed ``config.search``, as a dict). Ends the program in one
    line, naming ``flag``, on a bad value, and on a key that a play-time override of the run
    replaces (``c_puct`` where ``play_c_puct`` is set: it would play as before)."""
    from alphazero_jax.search.mctx_search import PLAY_OVERRIDES

    replaced_by = {setting: play for play, setting in PLAY_OVERRIDES.items()}.get(key)
    if replaced_by and own.get(replaced_by, 0.0) > 0:
        fail(
            f"{flag}: {key} is replaced in play by this network's "
            f"{replaced_by}={own[replaced_by]}; set {replaced_by} instead."
        )
    kind = type(own[key])
    words = {"true": True, "1": True, "false": False, "0": False}
    try:
        if kind is bool:
            return [words[text.lower()] for text in texts]
        return [kind(text) for text in texts]
    except (KeyError, ValueError):
        fail(f"{flag}: {key} takes values of type {kind.__name__}; got {','.join(texts)!r}.")


def with_search(run, items: list[str]):
    """``run`` (``agents.pretrained.restore``'s) with ``--search``'s ``KEY=VALUE`` items set
    in a copy of its config (completed with the keys added since it was trained), in order;
    ``run`` itself for none. Ends the program in one line on an item that is no ``KEY=VALUE`` of
    ``config.search``, or a value ``search_values`` refuses."""
    if not items:
        return run
    from alphazero_jax.configs import settings

    config = settings.complete(run.config)
    for item in items:
        key, _, text = item.partition("=")
        own = config.search.to_dict()
        if key not in own or not text:
            fail(f"--search: expected KEY=VALUE with a key among {sorted(own)}; got {item!r}.")
        (config.search[key],) = search_values(key, [text], own, "--search")
    return run._replace(config=config)
