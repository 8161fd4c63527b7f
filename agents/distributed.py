"""Running independent pieces of an evaluation as Ray tasks (the ``ray`` extra; docs/ray.md).

Tournaments (``run_tournament(..., shards=K, ray=True)``) and the announcement survey and
comparison (``agents.announce``) split their work into pieces that do not share state: each
piece is a function call with its own engine and its own seeded agents. :func:`map_tasks` runs
those calls as Ray tasks and returns their results in the pieces' order, so a distributed run
merges exactly what the local run merges.

Ray: if the process is already connected (``ray.init`` was called), the tasks go there. Otherwise
:func:`map_tasks` connects to ``address`` (``"auto"``: the cluster this node belongs to;
``"ray://head:10001"``: a remote cluster through Ray Client), or starts a local Ray when
``address`` is None, and disconnects (stopping a Ray it started) when the tasks are done.
Every node of a cluster needs this package installed (``pip install 'nos-env[ray]'``), and
``model:PATH`` / ``ensemble:PATH,PATH`` / ``rllib:PATH`` agents need their files at the same path on every node.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from nos_env.extras import require


def map_tasks(fn: Callable, jobs: Sequence[tuple], address: str | None = None,
              done: Callable[[Any], None] | None = None, num_cpus_per_task: float = 1) -> list:
    """``[fn(*job) for job in jobs]``, each call a Ray task; ``done(result)`` is called as each
    finishes (in any order), the list is in the jobs' order."""
    require("ray", "running evaluations as Ray tasks (--ray)", ("ray",))
    import ray

    started = False
    if not ray.is_initialized():
        if address is None:
            ray.init(include_dashboard=False, log_to_driver=False, configure_logging=False)
        else:
            ray.init(address=address, log_to_driver=False)
        started = True
    try:
        remote = ray.remote(num_cpus=num_cpus_per_task)(fn)
        refs = [remote.remote(*job) for job in jobs]
        index = {ref: i for i, ref in enumerate(refs)}
        results: list = [None] * len(refs)
        pending = list(refs)
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            for ref in ready:
                results[index[ref]] = ray.get(ref)
                if done is not None:
                    done(results[index[ref]])
        return results
    finally:
        if started:
            ray.shutdown()


def cluster_cpus(address: str | None = None) -> int:
    """How many CPUs the Ray cluster at ``address`` (or the local machine's Ray) offers."""
    require("ray", "running evaluations as Ray tasks (--ray)", ("ray",))
    import ray

    if ray.is_initialized():
        return int(ray.cluster_resources().get("CPU", 1))
    if address is None:
        import os

        return os.cpu_count() or 1
    ray.init(address=address, log_to_driver=False)
    try:
        return int(ray.cluster_resources().get("CPU", 1))
    finally:
        ray.shutdown()
