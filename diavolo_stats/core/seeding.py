"""Seeds: one validated seed, split into independent, repeatable child streams.

A result depends on the seed alone: child i of a seed is always the same
stream (`SeedSequence.spawn`'s i-th child), however the work is split and
however often it is asked for.
"""

from __future__ import annotations

import numpy as np

from diavolo_stats.validation import Maybe, Whole, check_value


def root_sequence(seed: int | np.random.SeedSequence | None) -> np.random.SeedSequence:
    """The SeedSequence of `seed`: a whole number of 0 or more, a SeedSequence, or None for fresh entropy."""
    if isinstance(seed, np.random.SeedSequence):
        return seed
    return np.random.SeedSequence(check_value("seed", seed, Maybe(Whole(0))))


def child(root: np.random.SeedSequence, index: int) -> np.random.SeedSequence:
    """The `index`-th spawned child of `root`, without changing `root` (unlike `root.spawn`)."""
    return np.random.SeedSequence(root.entropy, spawn_key=root.spawn_key + (index,))


def children(root: np.random.SeedSequence, count: int) -> list[np.random.SeedSequence]:
    """Children 0 .. count - 1 of `root` (see `child`)."""
    return [child(root, index) for index in range(count)]
