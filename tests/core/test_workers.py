"""How many threads the library's own splits of a job use: every core in a program, one in a pool's worker."""

from __future__ import annotations

from diavolo_stats.core import workers


def test_a_pool_worker_splits_its_jobs_on_one_thread_and_its_parent_on_every_core():
    with workers.worker_pool(1) as pool:
        assert pool.submit(workers.threads).result() == 1
    assert workers.threads() == workers.CORES > 1
