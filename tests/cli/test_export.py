"""``alphazero-export`` records the commit of the checkout the package runs from, not of
the folder it is started in (a pip user's own git repository)."""

import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_export_head__is_the_packages_checkout_whatever_the_working_folder(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)  # another repository
    head = subprocess.run(
        ["git", "-C", REPO, "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    # In a process of its own: importing the program defines its flags.
    script = "from alphazero_jax.cli import export; print(export._head())"
    printed = subprocess.run(
        [sys.executable, "-c", script],
        cwd=tmp_path,
        env=dict(os.environ, PYTHONPATH=REPO),
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert printed.removesuffix("+changes") == head, (printed, head)
