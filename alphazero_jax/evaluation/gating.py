"""Gating's rules, and the opponents an evaluation plays: what a training config names
(``config.gating``, ``config.evaluation.opponents``), checked when the config is read and
applied by ``training.evaluator``.

``win_ratio``: the candidate's wins >= threshold x the best network's wins (1.3 unless set, a
little stricter than the 55% of games Silver et al. (2017) asked of AlphaGo Zero's
candidates, which is 1.22); ``score``: its score >= threshold (0.55 unless set).
"""

from __future__ import annotations

from collections.abc import Sequence

from alphazero_jax.evaluation import arena

GATING_RULES = ("none", "win_ratio", "score")  # "none": no gating

ANCHOR = "random"  # the baseline rated 0
# Each rule's threshold where the config leaves it at 0, and the thresholds that make sense:
# a win ratio below 1 or a score below 0.5 accepts a candidate that loses more than it wins.
GATING_THRESHOLDS = {"win_ratio": 1.3, "score": 0.55}
_SENSIBLE = {"win_ratio": (1.0, float("inf")), "score": (0.5, 1.0)}


def opponent_specs(baselines: Sequence[str]) -> tuple[str, ...]:
    """The specs an evaluation plays: ``ANCHOR`` first, then ``baselines`` without repeats."""
    return tuple(dict.fromkeys([ANCHOR, *baselines]))


def gating_threshold(rule: str, threshold: float) -> float:
    """The threshold a gating rule uses: ``threshold``, or the rule's own where it is 0.

    Raises:
      ValueError: an unknown rule, or a threshold outside the rule's sensible range.
    """
    if rule not in GATING_THRESHOLDS:
        raise ValueError(f"gating rule must be one of {GATING_RULES[1:]}, got {rule!r}.")
    low, high = _SENSIBLE[rule]
    if threshold and not low <= threshold <= high:
        meaning = "wins >= threshold x losses" if rule == "win_ratio" else "score >= threshold"
        why = (
            f"below {low} it accepts a candidate that loses more than it wins"
            if threshold < low
            else "no candidate can pass"
        )
        raise ValueError(
            f"gating rule {rule!r} ({meaning}) expects a threshold in [{low}, {high}] (or 0 "
            f"for its default, {GATING_THRESHOLDS[rule]}), got {threshold}: {why}."
        )
    return threshold or GATING_THRESHOLDS[rule]


def passes(record: arena.Record, *, rule: str, threshold: float) -> bool:
    """The gating rule on the candidate's record against the best network.

    ``win_ratio``: wins >= threshold x losses (the best network's wins), and at least one
    win; ``score``: (wins + draws / 2) / games >= threshold.
    """
    if rule == "win_ratio":
        return record.wins > 0 and record.wins >= threshold * record.losses
    if rule == "score":
        return record.score >= threshold
    raise ValueError(f"gating rule must be one of {GATING_RULES[1:]}, got {rule!r}.")
