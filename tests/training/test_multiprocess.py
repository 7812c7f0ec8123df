"""Training as two processes on this CPU (a coordinator on 127.0.0.1, gloo collectives):
both processes compute the same iterations as one process with as many devices, and the
run resumes in one process."""

import json
import os
import re
import socket
import subprocess
import sys

import jax
import numpy as np
import pytest

from alphazero_jax import runs

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _train(workdir, *flags):
    command = [
        sys.executable,
        "-m",
        "experiments.train",
        "--config=tic_tac_toe:smoke",
        f"--workdir={workdir}",
        "--config.evaluation.every=0",
        *flags,
    ]
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    return subprocess.Popen(
        command, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )


def _finish(process) -> str:
    try:
        output = process.communicate(timeout=400)[0]
    except subprocess.TimeoutExpired:  # a process waiting for a peer that died: end it
        process.kill()
        output = process.communicate()[0]
    assert process.returncode == 0, output
    return output


def _progress(output: str) -> list[str]:
    """The progress lines without speeds (which differ): iteration and losses."""
    lines = re.findall(r"\] (\d+/\d+) .* pos/s (loss .*\)) ETA", output)
    return [" ".join(line) for line in lines]


def _losses(workdir) -> list[float]:
    lines = (workdir / "metrics.jsonl").read_text().splitlines()
    return [json.loads(line)["loss"] for line in lines]


@pytest.mark.slow
@pytest.mark.long
def test_train__two_processes_agree_with_one_and_resume_in_one(tmp_path):
    shared, single = tmp_path / "two_processes", tmp_path / "one_process"
    address = f"--coordinator_address=127.0.0.1:{_free_port()}"
    two = [
        _train(
            shared,
            "--host_devices=1",
            "--num_processes=2",
            f"--process_id={i}",
            address,
            "--config.num_iterations=2",
        )
        for i in range(2)
    ]
    reference = _train(single, "--host_devices=2")  # the same 2 devices in one process
    outputs = [_finish(process) for process in two]
    assert "2 x cpu over 2 processes" in outputs[0]
    assert _progress(outputs[0]) == _progress(outputs[1]) and len(_progress(outputs[0])) == 2
    assert runs.checkpoint_steps(str(shared)) == [2]
    _finish(reference)
    _finish(_train(shared, "--host_devices=2"))  # resumes iteration 3 in one process
    assert _losses(shared) == _losses(single)  # bit for bit
    resumed, straight = runs.restore_network(str(shared)), runs.restore_network(str(single))
    assert resumed.iteration == straight.iteration == 3
    for a, b in zip(jax.tree.leaves(resumed.variables), jax.tree.leaves(straight.variables)):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--num_processes=2"], "needs --process_id in 0..1, got None"),
        (["--num_processes=2", "--process_id=1"], "needs --coordinator_address=HOST:PORT"),
        (["--process_id=1"], "--process_id=1 needs --num_processes > 1"),
    ],
)
def test_train_entry_point__incomplete_multiprocess_flags_fail_in_one_line(
    tmp_path, flags, message
):
    process = _train(tmp_path / "run", *flags)
    output = process.communicate(timeout=120)[0]
    assert process.returncode == 2, output
    errors = [line for line in output.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and message in errors[0], output
