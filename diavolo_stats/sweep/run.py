"""Running a sweep: every variant of a grid answered, here over processes or on a Dask cluster.

Value commands are exact (`core.odds.exact_odds`), computed in this process. `closest` is simulated, one task
per variant seeded by `grid.variant_seed`, over a local process pool (`workers`) or on Dask distributed
(`scheduler`: a running scheduler's address, or `local:N`). Dask places, retries and recovers the tasks; this
module keeps a few tasks per worker in flight and writes each variant's rows as it finishes (`results_file`).
"""

from __future__ import annotations

import dataclasses
import itertools
import logging
import re
import warnings
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from contextlib import ExitStack, contextmanager
from pathlib import Path

from diavolo_stats.core.simulate import MAX_WORKERS, simulate
from diavolo_stats.core.variant import Variant
from diavolo_stats.core.workers import worker_pool
from diavolo_stats.errors import InputError
from diavolo_stats.sweep.grid import SweepGrid, variant_seed
from diavolo_stats.sweep.result import SweepResult, resume_problem, variant_fields, variant_key, variant_rows
from diavolo_stats.sweep.results_file import ResultsFile, check_output
from diavolo_stats.validation import FilePath, Flag, Instance, Maybe, Text, Whole, checked

CONNECT_TIMEOUT_S = 5
"""How long to try reaching a Dask scheduler before saying it is unreachable."""

TASKS_PER_WORKER = 2
"""Tasks handed out per worker at a time: enough to keep it busy, few to lose on a kill."""

Progress = Callable[[int, int], None]
"""Called with (variants done in this run, variants this run has to do)."""


@checked(grid=Instance(SweepGrid), workers=Whole(1, MAX_WORKERS), scheduler=Maybe(Text(max_length=200)),
         out=Maybe(FilePath()), resume=Flag())
def sweep(grid: SweepGrid, *, workers: int = 1, scheduler: str | None = None, out: str | Path | None = None,
          resume: bool = False, progress: Progress | None = None) -> SweepResult:
    """Answer every variant of `grid`: exact values, and `closest` simulated for `grid.rounds` rounds.

    workers: local processes simulating at once. scheduler: a Dask scheduler
    address or `local:N` instead. out: a `.csv` or `.parquet` file written as
    each variant finishes; with `resume`, the variants it already holds are
    kept and skipped. progress: called as variants finish. Returns every
    variant's rows in grid order (`SweepResult.meeting` keeps those meeting a target).
    """
    if scheduler is not None and workers != 1:
        raise InputError("give local workers or a scheduler, not both (a cluster has its own workers)",
                         field="workers")
    if resume and out is None:
        raise InputError("needs a file to resume (out)", field="resume")
    if out is not None:
        check_output(Path(out))
    sweep_id = grid.identity()
    with _executor(grid, workers, scheduler) as run_tasks, ExitStack() as closing:
        results = None
        if out is not None:
            # A row per command, and the overall grey rate.
            results = closing.enter_context(ResultsFile(Path(out), sweep_id, len(grid.commands) + 1, resume))
        finished = _resumed(grid, sweep_id, results) if results is not None else {}
        to_do = [variant for variant in grid.variants if _key(variant) not in finished]
        done = 0
        # Value commands are exact: only closest needs tasks, one per geometry (its seed), shared by the
        # variants that differ only in their dice's values.
        sharing: dict[int, list[Variant]] = {}
        for variant in to_do if grid.simulated else ():
            sharing.setdefault(variant_seed(grid.seed, variant), []).append(variant)
        outcomes = (((same, simulated) for variant, simulated in run_tasks(grid, [group[0] for group in
                                                                                  sharing.values()])
                     for same in sharing[simulated[2]])
                    if grid.simulated else ((variant, None) for variant in to_do))
        for variant, simulated in outcomes:
            rows = variant_rows(variant, sweep_id, simulated)
            if results is not None:
                results.append(rows, sync=simulated is not None)
            finished[_key(variant)] = rows
            done += 1
            if progress is not None:
                progress(done, len(to_do))
        records = [row for variant in grid.variants for row in finished[_key(variant)]]
        if results is not None:
            results.finish(records)
    return SweepResult(description=grid.describe(), sweep_id=sweep_id, variants=grid.size, records=tuple(records))


def _resumed(grid: SweepGrid, sweep_id: str, results: ResultsFile) -> dict[tuple, list[dict]]:
    """The variants of `results` whose rows check (`result.resume_problem`); a warning names those that do
    not, which are computed again."""
    kept, problems = {}, []
    for variant in grid.variants:
        rows = results.done.get(_key(variant))
        if rows is None:
            continue
        simulated = (grid.rounds, variant_seed(grid.seed, variant)) if grid.simulated else None
        problem = resume_problem(rows, variant, sweep_id, simulated)
        if problem is None:
            kept[_key(variant)] = rows
        else:
            problems.append(f"{variant.describe()}: {problem}")
    if problems:
        warnings.warn(f"{results.path}: {len(problems)} variant(s) whose rows do not check are computed again "
                      f"(first: {problems[0]})", stacklevel=3)
    return kept


def closest_ties(variant: Variant, rounds: int, seed: int) -> int:
    """Ties of `closest` in `rounds` simulated rounds of `variant`, seeded `seed` (one task of a sweep)."""
    closest = next(c for c in variant.commands if not c.depends_on_values)
    alone = dataclasses.replace(variant, commands=(closest,))
    return simulate(alone, rounds, seed=seed).ties(closest)


def _key(variant: Variant) -> tuple:
    return variant_key(variant_fields(variant))


Answered = tuple[Variant, "tuple[int, int, int] | None"]
"""A variant and its closest simulation (ties, rounds, seed), or None when it has no closest."""


@contextmanager
def _executor(grid: SweepGrid, workers: int, scheduler: str | None):
    """A function turning variants into (variant, simulated) pairs as they finish, here or on Dask."""
    if scheduler is not None:
        with _dask_client(scheduler) as client:
            yield lambda grid, variants: _on_dask(client, grid, variants)
    elif workers > 1:
        pool = worker_pool(workers)
        try:
            yield lambda grid, variants: _in_pool(pool, workers, grid, variants)
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
    else:
        yield _in_this_process


def _in_this_process(grid: SweepGrid, variants: Iterable[Variant]) -> Iterator[Answered]:
    for variant in variants:
        seed = variant_seed(grid.seed, variant)
        yield variant, (closest_ties(variant, grid.rounds, seed), grid.rounds, seed)


def _in_pool(pool: ProcessPoolExecutor, workers: int, grid: SweepGrid, variants: list[Variant]) -> Iterator[Answered]:
    waiting = iter(variants)
    pending: dict = {}

    def refill() -> None:
        for variant in itertools.islice(waiting, TASKS_PER_WORKER * workers - len(pending)):
            seed = variant_seed(grid.seed, variant)
            pending[pool.submit(closest_ties, variant, grid.rounds, seed)] = variant, seed

    refill()
    while pending:
        finished, _ = wait(pending, return_when=FIRST_COMPLETED)
        for future in finished:
            variant, seed = pending.pop(future)
            yield variant, (future.result(), grid.rounds, seed)
        refill()


@contextmanager
def _dask_client(scheduler: str):
    """A Dask client of the scheduler at `scheduler`, or of a local cluster for `local:N`, closed after."""
    try:
        from distributed import Client
    except ImportError:
        raise InputError("needs Dask distributed: pip install -e '.[cluster]'", field="scheduler") from None
    local = re.fullmatch(r"local:([0-9]+)", scheduler, flags=re.ASCII)
    if local:
        count = int(local.group(1))
        if not 1 <= count <= MAX_WORKERS:
            raise InputError(f"local:N needs N from 1 to {MAX_WORKERS} (4 per processor), got {count}",
                             field="scheduler")
        with local_cluster(count) as cluster, Client(cluster) as client:
            yield client
        return
    if not re.fullmatch(r"(tcp|tls|ws|wss|inproc|ucx)://\S+", scheduler):
        raise InputError(f"{scheduler!r} is not a scheduler address (like tcp://host:8786) or local:N",
                         field="scheduler")
    try:
        client = Client(scheduler, timeout=f"{CONNECT_TIMEOUT_S}s")
    except (OSError, TimeoutError):
        raise InputError(f"cannot reach the Dask scheduler at {scheduler} (no answer within {CONNECT_TIMEOUT_S} s)",
                         field="scheduler") from None
    with client:
        yield client


def local_cluster(workers: int):
    """A Dask LocalCluster of `workers` single-threaded worker processes on 127.0.0.1; close it after use."""
    import dask
    from distributed import LocalCluster

    # Dask's nannies give their workers MALLOC_TRIM_THRESHOLD_, which turns off glibc's adaptive mmap
    # threshold: every large numpy temporary is then mapped afresh and the simulation runs at half speed.
    with dask.config.set({"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None}):
        return LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                            dashboard_address=None, silence_logs=logging.ERROR)


def _on_dask(client, grid: SweepGrid, variants: list[Variant]) -> Iterator[Answered]:
    from distributed import as_completed

    threads = max(1, sum(client.nthreads().values()))
    waiting = iter(variants)
    pending: dict = {}

    def submit(variant: Variant):
        seed = variant_seed(grid.seed, variant)
        future = client.submit(closest_ties, variant, grid.rounds, seed, pure=False, retries=2)
        pending[future] = variant, seed
        return future

    completed = as_completed([submit(v) for v in itertools.islice(waiting, TASKS_PER_WORKER * threads)])
    try:
        for future in completed:
            variant, seed = pending.pop(future)
            yield variant, (future.result(), grid.rounds, seed)
            following = next(waiting, None)
            if following is not None:
                completed.add(submit(following))
    finally:
        if pending:
            client.cancel(list(pending))
