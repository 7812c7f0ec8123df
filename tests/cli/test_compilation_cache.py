"""The entry points' compilation cache (``alphazero_jax/cli/compilation_cache.py``): where it
lives, and that a directory others could write to is refused, since JAX runs what it finds
there. ``test_serve.py`` checks that ``experiments.serve`` creates it with mode 0700."""

import os
import pathlib

import jax
import pytest

from alphazero_jax.cli import compilation_cache


def test_the_directory_by_flag_environment_and_default():
    home = pathlib.Path(os.path.expanduser("~"))
    default = compilation_cache.default_dir
    assert default({}) == home / ".cache" / "alphazero_jax" / "jax"
    assert default({"XDG_CACHE_HOME": "/x"}) == pathlib.Path("/x/alphazero_jax/jax")
    assert default({"JAX_COMPILATION_CACHE_DIR": "/j"}) == pathlib.Path("/j")
    ours = {"ALPHAZERO_JAX_CACHE_DIR": "/a", "JAX_COMPILATION_CACHE_DIR": "/j"}
    assert default(ours) == pathlib.Path("/a")
    assert default({"ALPHAZERO_JAX_CACHE_DIR": "off", "XDG_CACHE_HOME": "/x"}) is None


def test_a_new_directory_is_yours_alone(tmp_path):
    path = tmp_path / "a" / "jax"
    assert compilation_cache.prepare(path) is None
    assert path.stat().st_mode & 0o777 == 0o700


def test_a_directory_others_can_write_is_refused(tmp_path):
    path = tmp_path / "shared"
    path.mkdir()
    path.chmod(0o777)
    assert "writable by others (mode 777; expected 700)" in compilation_cache.problem(path)
    parent = tmp_path / "open"
    (parent / "jax").mkdir(parents=True, mode=0o700)
    parent.chmod(0o777)  # anyone could rename jax/ and put their own in its place
    refused = compilation_cache.prepare(parent / "jax")
    assert f"its folder {parent} is writable by others (mode 777) and not sticky" in refused
    parent.chmod(0o1777)  # sticky, as /tmp: others cannot rename what is yours
    assert compilation_cache.problem(parent / "jax") is None
    group = tmp_path / "group"
    group.mkdir()
    group.chmod(0o770)  # fine when only you are in the group (a user private group)
    private = compilation_cache._private_group(group.stat().st_gid)
    assert (compilation_cache.problem(group) is None) == private
    file = tmp_path / "file"
    file.write_text("")
    assert "cannot be created" in compilation_cache.prepare(file / "jax")


@pytest.mark.skipif(os.getuid() != 0, reason="giving a folder to another user needs root")
def test_a_directory_owned_by_someone_else_is_refused(tmp_path):
    path = tmp_path / "theirs"
    path.mkdir(mode=0o700)
    os.chown(path, 12345, 12345)
    assert "owned by user 12345, not by you (0)" in compilation_cache.problem(path)


def test_a_refused_directory_turns_the_cache_off_with_one_line(tmp_path, capsys):
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o777)
    shared.chmod(0o777)
    before = jax.config.jax_enable_compilation_cache
    try:
        assert compilation_cache.enable(shared) is None
        assert not jax.config.jax_enable_compilation_cache
    finally:
        jax.config.update("jax_enable_compilation_cache", before)
    warning = capsys.readouterr().err
    assert warning.count("\n") == 1 and warning.startswith("warning: not caching compiled")
    assert "--compilation_cache_dir=" in warning and "--nocompilation_cache" in warning
