"""The fast engine when other jobs share the machine: one process alone, then two side by side.

    python benchmarks/bench_contention.py [--seconds 4] [--batches 4096 256] [--threads 1 2 default]
                                          [--rounds 1] [--neighbours 0] [--env NAME=VALUE ...]

For each batch size and threads setting the script starts one child process that runs
``bench_fast.fast_rate`` (4 players, observation and mask, random legal actions from
``FastTables.sample_legal``, the median over 0.25-second blocks), then two identical
children at once. Children warm their kernels up, wait until all of them are ready, and then
time the same seconds together, so the pair really competes for the cores.

Printed per row: agent-steps per second of each process; ``vs 1``, the ratio to the
1-thread figure of the same run and the same column (the mean over the processes);
``others``, the CPU other programs used meanwhile, in cores (from ``/proc/stat``, minus the
children's own CPU time: this machine is shared, and a busy neighbour reads like a third
process); ``parallel``, the share of the engine's calls that ran on several threads (only
for checkouts whose ``FastTables`` reports it).

Threads settings: a number is ``FastTables(num_threads=...)``; ``default`` passes no option.
In a checkout from before that option, a number sets numba's own thread mask instead
(``numba.set_num_threads``, which every parallel kernel of that version follows).

``--rounds N`` repeats everything N times, the rounds spread over the run, and each cell
shows its median round (by the mean rate over its processes): a neighbour's burst then
spoils one round of a cell rather than the cell.

``--neighbours N`` keeps N other processes busy (a Python loop each) during the whole run,
like other jobs on the machine; ``others`` then counts them.

``--env`` sets environment variables of the children, e.g. ``NUMBA_THREADING_LAYER=workqueue``
or ``OMP_WAIT_POLICY=PASSIVE`` to try numba's other threading layers and OpenMP's waiting.
"""

from __future__ import annotations

import argparse
import inspect
import os
import subprocess
import sys
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
# This checkout's nos_env, not an installed one (so an old worktree measures its own version).
sys.path[:0] = [HERE, os.path.dirname(HERE)]


def machine_busy_seconds() -> float:
    """CPU seconds all processes have used since boot (``/proc/stat``; steal time counts as busy)."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    user, nice, system, idle, iowait, irq, softirq, steal = (fields + [0] * 8)[:8]
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def child(batch: int, threads: str, seconds: float) -> None:
    warnings.filterwarnings("ignore")
    from bench_fast import fast_rate
    import nos_env
    from nos_env.fast_engine import FastTables

    root = os.path.dirname(os.path.dirname(os.path.abspath(nos_env.__file__)))
    assert root == os.path.dirname(HERE), f"imported {nos_env.__file__}, not this checkout's"
    options = {}
    if threads != "default":
        if "num_threads" in inspect.signature(FastTables).parameters:
            options["num_threads"] = int(threads)
        else:  # a checkout from before the option: numba's thread mask of this (the calling) thread
            import numba

            numba.set_num_threads(int(threads))
    seen = {}

    def ready(tables) -> None:
        print("ready", flush=True)
        sys.stdin.readline()  # go: every child of the group is warm
        seen["tables"] = tables
        seen["calls"] = dict(getattr(tables, "thread_stats", {}))
        seen["cpu"] = time.process_time()

    rate = fast_rate(batch, True, seconds, ready=ready, **options)
    cpu = time.process_time() - seen["cpu"]
    after = getattr(seen["tables"], "thread_stats", None)
    share = -1.0
    if after is not None:
        calls = {k: after.get(k, 0) - seen["calls"].get(k, 0) for k in after}
        share = sum(v for k, v in calls.items() if k > 1) / max(1, sum(calls.values()))
    import numba

    try:
        layer = numba.threading_layer()
    except ValueError:  # no parallel call was made
        layer = "none"
    print(rate, cpu, share, layer, flush=True)


LAYERS: set[str] = set()  # numba threading layers the children used


def run_group(processes: int, batch: int, threads: str, seconds: float,
              env: dict | None = None) -> tuple[list[float], float, list[float]]:
    """Rates of ``processes`` children run at once, other programs' load (cores), parallel shares."""
    cmd = [sys.executable, os.path.abspath(__file__), "--child", str(batch), threads, str(seconds)]
    procs = [subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                              env=None if env is None else {**os.environ, **env})
             for _ in range(processes)]
    for p in procs:
        line = p.stdout.readline().strip()
        if line != "ready":
            raise RuntimeError(f"child {cmd} said {line!r} instead of 'ready' (exit {p.wait()})")
    busy, start = machine_busy_seconds(), time.perf_counter()
    for p in procs:
        p.stdin.write("go\n")
        p.stdin.flush()
    results = []
    for p in procs:
        fields = p.stdout.readline().split()
        results.append([float(x) for x in fields[:3]] + fields[3:])
    wall, busy = time.perf_counter() - start, machine_busy_seconds() - busy
    for p in procs:
        p.stdin.close()
        if p.wait() != 0:
            raise RuntimeError(f"child {cmd} failed with exit status {p.returncode}")
    others = max(0.0, (busy - sum(r[1] for r in results)) / wall)
    LAYERS.update(r[3] for r in results)
    return [r[0] for r in results], others, [r[2] for r in results]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=4.0, help="timed seconds per figure")
    parser.add_argument("--batches", type=int, nargs="+", default=[4096, 256])
    parser.add_argument("--threads", nargs="+", default=["1", "2", "default"],
                        help="threads settings: numbers (num_threads) and/or 'default'")
    parser.add_argument("--rounds", type=int, default=1,
                        help="repeat everything; each cell shows its median round (by the mean rate)")
    parser.add_argument("--neighbours", type=int, default=0, help="busy processes running beside the benchmark")
    parser.add_argument("--env", nargs="+", default=[], metavar="NAME=VALUE",
                        help="environment variables of the benchmark's processes")
    parser.add_argument("--child", nargs=3, metavar=("BATCH", "THREADS", "SECONDS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(int(args.child[0]), args.child[1], float(args.child[2]))
        return
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    if args.neighbours < 0:
        parser.error("--neighbours must be at least 0")
    for t in args.threads:
        if t != "default" and not (t.isdigit() and int(t) >= 1):
            parser.error(f"--threads: {t!r} is neither a positive number nor 'default'")
    env = {}
    for item in args.env:
        name, sep, value = item.partition("=")
        if not sep or not name:
            parser.error(f"--env: {item!r} is not NAME=VALUE")
        env[name] = value

    def shares(values):
        return ", ".join(f"{v:.0%}" for v in values) if min(values) >= 0 else "-"

    # Rounds outermost, so each cell's rounds are spread over the run and a neighbour's burst
    # spoils one round of a cell rather than all of them.
    runs: dict[tuple, list] = {}
    neighbours = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.neighbours)]
    try:
        for r in range(args.rounds):
            for batch in args.batches:
                for threads in args.threads:
                    for processes in (1, 2):
                        rates, others, parallel = run_group(processes, batch, threads, args.seconds, env or None)
                        runs.setdefault((batch, threads, processes), []).append(
                            (sum(rates) / len(rates), rates, others, parallel))
                if args.rounds > 1:
                    print(f"round {r + 1} of {args.rounds}: B={batch} done", file=sys.stderr, flush=True)
    finally:
        for p in neighbours:
            p.kill()
            p.wait()

    def median_round(key):
        rounds = sorted(runs[key], key=lambda run: run[0])
        return rounds[(len(rounds) - 1) // 2]

    print(f"fast engine, 4 players, observation and mask, random legal actions, {args.seconds:g} s per figure, "
          f"median of {args.rounds} round{'s' if args.rounds > 1 else ''}; "
          f"{os.cpu_count()} CPUs" + "".join(f"; {k}={v}" for k, v in env.items())
          + (f"; {args.neighbours} busy neighbour process{'es' if args.neighbours > 1 else ''}"
             if args.neighbours else ""))
    print(f"{'B':>5s} {'threads':>8s} {'alone':>8s} {'vs 1':>5s} {'others':>6s} {'parallel':>8s}  |"
          f" {'side by side, each':>18s} {'vs 1':>5s} {'others':>6s} {'parallel':>9s}")
    for batch in args.batches:
        for threads in args.threads:
            cells = []
            for processes in (1, 2):
                mean, rates, others, parallel = median_round((batch, threads, processes))
                base = median_round((batch, "1", processes))[0] if "1" in args.threads else None
                ratio = f"{mean / base:5.2f}" if base else f"{'-':>5s}"
                cells.append((", ".join(f"{r / 1e6:.2f}M" for r in rates), ratio, f"{others:6.2f}",
                              shares(parallel)))
            (a, ra, oa, pa), (b, rb, ob, pb) = cells
            print(f"{batch:5d} {threads:>8s} {a:>8s} {ra} {oa} {pa:>8s}  | {b:>18s} {rb} {ob} {pb:>9s}", flush=True)
    print(f"numba threading layer of the children: {', '.join(sorted(LAYERS - {'none'})) or 'none (serial only)'}")


if __name__ == "__main__":
    main()
