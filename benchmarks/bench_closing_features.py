"""Speed of each play's closing features (nos_env/games/nos/closing.py, ``env.closing_features``),
with the settlement features too (``env.settlement_features``), beside the compiled Tactics hint they ride behind, on the same observation rows: positions of
real 4-player games (Tactics at every seat of a vector env), every decision kept.

    OMP_NUM_THREADS=1 NUMBA_NUM_THREADS=1 python benchmarks/bench_closing_features.py --tables 256 --steps 60

prints microseconds a row for each (best of --repeats), their ratios, the rows in play with a legal
close variant, and the load.
"""

from __future__ import annotations

import argparse
import os
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=256)
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args()
    import numpy as np

    import nos_env
    from agents.base import float_observations
    from agents.tactics import kernel_params
    from nos_env import encoding as E
    from nos_env.fast_engine import closing_features, tactics_rows

    params = kernel_params()
    venv = nos_env.vector_env(args.tables, num_players=4, seed=args.seed)
    obs, masks, _ = venv.reset()
    rows, row_masks = [], []
    for _ in range(args.steps):
        fobs = float_observations(obs)
        m = np.ascontiguousarray(masks, np.int8)
        rows.append(fobs.copy())
        row_masks.append(m.copy())
        obs, masks, *_ = venv.step(tactics_rows(fobs, m, params))
    obs, masks = np.concatenate(rows), np.concatenate(row_masks)
    closing_features(obs[:8], masks[:8], settlement=True)  # compiled (or loaded) before timing
    tactics_rows(obs[:8], masks[:8], params)

    def best(fn) -> float:
        times = []
        for _ in range(args.repeats):
            start = time.perf_counter()
            fn()
            times.append(time.perf_counter() - start)
        return min(times) / len(obs) * 1e6

    closing = best(lambda: closing_features(obs, masks))
    settlement = best(lambda: closing_features(obs, masks, settlement=True))
    tactics = best(lambda: tactics_rows(obs, masks, params))
    with_close = int(masks[:, E.PLAY0 + 1 : E.PASS : 2].any(axis=1).sum())
    print(f"{len(obs):,} rows ({with_close:,} with a legal close variant): closing features {closing:.2f} us a row, "
          f"with the settlement features {settlement:.2f} us a row, Tactics hint {tactics:.2f} us a row, ratios "
          f"{closing / tactics:.2f} and {settlement / tactics:.2f}; load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
