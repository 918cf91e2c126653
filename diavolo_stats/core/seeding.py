"""Seeds: one validated seed, split into independent, repeatable child streams.

A result depends on the seed alone: child i of a seed is always the same
stream (`SeedSequence.spawn`'s i-th child), however the work is split and
however often it is asked for.
"""

from __future__ import annotations

import numpy as np

from diavolo_stats.errors import InputError


def root_sequence(seed: int | np.random.SeedSequence | None) -> np.random.SeedSequence:
    """The SeedSequence of `seed`: a whole number of 0 or more, a SeedSequence, or None for fresh entropy."""
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0):
        raise InputError(f"must be a whole number of 0 or more, got {seed!r}", field="seed")
    return np.random.SeedSequence(seed)


def child(root: np.random.SeedSequence, index: int) -> np.random.SeedSequence:
    """The `index`-th spawned child of `root`, without changing `root` (unlike `root.spawn`)."""
    return np.random.SeedSequence(root.entropy, spawn_key=root.spawn_key + (index,))


def children(root: np.random.SeedSequence, count: int) -> list[np.random.SeedSequence]:
    """Children 0 .. count - 1 of `root` (see `child`)."""
    return [child(root, index) for index in range(count)]
