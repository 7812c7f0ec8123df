"""JAX's persistent compilation cache for the entry points, in a directory only you can write.

Every entry point that compiles (``serve``, ``play``, ``train``, ``evaluate``, the
benchmarks) calls ``setup()`` once its flags are parsed (``cli.begin`` does it), so that a
second start loads its compiled searches from disk instead of compiling them again.

The directory: ``--compilation_cache_dir``, else ``$ALPHAZERO_JAX_CACHE_DIR``, else
``$JAX_COMPILATION_CACHE_DIR``, else ``$XDG_CACHE_HOME/alphazero_jax/jax`` or
``~/.cache/alphazero_jax/jax``. It is created with mode 0700. JAX trusts what it finds
there (a cached program is run as it is), so whoever can write to the directory can run
code as you: one writable by others, or owned by someone else, or inside such a folder, is
refused with a one-line warning and nothing is cached. ``--nocompilation_cache`` turns the
cache off (as ``ALPHAZERO_JAX_CACHE_DIR=off`` does).
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import stat
import sys
from collections.abc import Mapping

from absl import flags

_ENABLED = flags.DEFINE_bool(
    "compilation_cache",
    True,
    "Keep compiled programs in a per-user disk cache (JAX's persistent compilation cache).",
)
_DIR = flags.DEFINE_string(
    "compilation_cache_dir",
    None,
    "The cache's directory (default: $ALPHAZERO_JAX_CACHE_DIR, else "
    "$XDG_CACHE_HOME/alphazero_jax/jax or ~/.cache/alphazero_jax/jax).",
)

ENV = "ALPHAZERO_JAX_CACHE_DIR"
OFF = ("off", "none", "0", "false")  # values of ENV that turn the cache off


def default_dir(environ: Mapping[str, str] = os.environ) -> pathlib.Path | None:
    """Where the cache lives when no flag says: ``$ALPHAZERO_JAX_CACHE_DIR``, then JAX's own
    ``$JAX_COMPILATION_CACHE_DIR``, then ``$XDG_CACHE_HOME`` or ``~/.cache``; None when
    ``$ALPHAZERO_JAX_CACHE_DIR`` turns it off."""
    chosen = environ.get(ENV) or environ.get("JAX_COMPILATION_CACHE_DIR")
    if chosen:
        return None if chosen.strip().lower() in OFF else pathlib.Path(chosen).expanduser()
    base = environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return pathlib.Path(base) / "alphazero_jax" / "jax"


def problem(path: pathlib.Path) -> str | None:
    """Why ``path`` (an existing directory) is not safe for a compilation cache, or None.

    Safe: a directory owned by this user and writable by no one else, whose every parent is
    owned by this user or root and writable by no one else unless sticky (as /tmp is: a
    sticky folder lets no one rename what is yours). A group counts as no one else when it
    is the user's private group (named after the user, with no other member: Debian's and
    Ubuntu's umask 002 makes folders group-writable). Without POSIX users (Windows) nothing
    is checked."""
    if not hasattr(os, "getuid"):
        return None
    uid, path = os.getuid(), path.resolve()
    info = path.lstat()
    if not stat.S_ISDIR(info.st_mode):
        return f"{path} is not a directory"
    if info.st_uid != uid:
        return f"{path} is owned by user {info.st_uid}, not by you ({uid})"
    if _writable_by_others(info):
        return f"{path} is writable by others (mode {stat.S_IMODE(info.st_mode):o}; expected 700)"
    for parent in path.parents:
        info = parent.lstat()
        if info.st_uid not in (uid, 0):
            return f"its folder {parent} is owned by user {info.st_uid}, not by you or root"
        if _writable_by_others(info) and not info.st_mode & stat.S_ISVTX:
            mode = stat.S_IMODE(info.st_mode)
            return f"its folder {parent} is writable by others (mode {mode:o}) and not sticky"
    return None


def _writable_by_others(info: os.stat_result) -> bool:
    if info.st_mode & 0o002:
        return True
    return bool(info.st_mode & 0o020) and not _private_group(info.st_gid)


def _private_group(gid: int) -> bool:
    import grp
    import pwd

    try:
        name, group = pwd.getpwuid(os.getuid()).pw_name, grp.getgrgid(gid)
    except KeyError:
        return False
    return group.gr_name == name and set(group.gr_mem) <= {name}


def prepare(path: pathlib.Path) -> str | None:
    """Creates ``path`` and its missing parents (mode 0700) when it is missing; returns why
    it cannot serve as the cache, or None when it can."""
    path = path.absolute()
    try:
        for folder in [*reversed(path.parents), path]:
            if not folder.exists():
                with contextlib.suppress(FileExistsError):  # another process was first
                    folder.mkdir(mode=0o700)
    except OSError as error:
        return f"{path} cannot be created ({error.strerror or error})"
    return problem(path)


def setup() -> pathlib.Path | None:
    """Turns JAX's persistent compilation cache on in the directory the flags and the
    environment choose (``enable``), or off; returns the directory used (None: off). Call
    it once the flags are parsed and before the first compile."""
    path = None
    if _ENABLED.value:
        path = pathlib.Path(_DIR.value).expanduser() if _DIR.value else default_dir()
    return enable(path)


def enable(path: pathlib.Path | None) -> pathlib.Path | None:
    """Caches compiled programs in ``path`` (created, and checked: ``problem``), or turns
    the cache off when ``path`` is None or refused (with a one-line warning on stderr);
    returns the directory used, or None."""
    import jax

    refused = prepare(path) if path is not None else None
    if refused:
        print(
            f"warning: not caching compiled programs: {refused}. JAX runs whatever is in its "
            "cache, so it must be yours alone; pass --compilation_cache_dir=<a folder of yours> "
            "or --nocompilation_cache.",
            file=sys.stderr,
            flush=True,
        )
        path = None
    if path is None:
        jax.config.update("jax_enable_compilation_cache", False)
        return None
    jax.config.update("jax_enable_compilation_cache", True)
    jax.config.update("jax_compilation_cache_dir", str(path))
    return path
