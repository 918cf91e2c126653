"""How many threads the library's own splits of a job use: every core in a program, one in a pool's worker."""

from __future__ import annotations

from diavolo_stats.core import workers


def test_a_pool_worker_splits_its_jobs_on_one_thread_and_its_parent_on_every_core():
    with workers.worker_pool(1) as pool:
        assert pool.submit(workers.threads).result() == 1
    assert workers.threads() == workers.CORES > 1


def _blas_threads() -> list[int]:
    from threadpoolctl import threadpool_info

    return [library["num_threads"] for library in threadpool_info() if library["user_api"] == "blas"]


def test_a_pool_worker_computes_its_products_on_one_thread_and_its_parent_keeps_blas_own():
    import numpy  # noqa: F401  (its BLAS loaded before the fork, as in a report)

    before = _blas_threads()
    with workers.worker_pool(1) as pool:
        in_worker = pool.submit(_blas_threads).result()
    assert in_worker and set(in_worker) == {1}
    assert _blas_threads() == before
