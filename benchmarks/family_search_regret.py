"""Where does the family Search lose its edge? Its choices scored by a far larger search.

    python benchmarks/family_search_regret.py --game matador --decisions 40
    python benchmarks/family_search_regret.py --game matador --budgets 48 192 --margins 2 1 0

Greedy plays every seat of a few hands (seeded); at each decision with two or more legal
actions, a reference Search with ``--reference`` rollouts and no Greedy safeguard estimates
every candidate's value (the acting seat's points in the rest of the hand minus the others'
mean, Greedy playing out every seat: the quantity the Search estimates). Each agent's choice
at that decision is then charged its *regret*: the reference value of the reference's best
candidate minus the reference value of the agent's choice. Greedy's mean regret is what any
Search with Greedy rollouts could win back at most (by this measure); a Search whose regret
stays near Greedy's is held back by its budget or its safeguard, not by its rollouts.

Prints one line per agent: mean regret (points per decision) with its 95% interval, how often
it chose differently from Greedy, and its seconds per decision.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from agents.base import BatchContext
from agents.family.games import make_rules, player_counts, tables_class
from agents.family.greedy import FamilyGreedyAgent


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="matador")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--decisions", type=int, default=40)
    parser.add_argument("--reference", type=int, default=2000, help="rollouts of the reference search")
    parser.add_argument("--budgets", type=int, nargs="+", default=[48, 192])
    parser.add_argument("--margins", type=float, nargs="+", default=[2.0, 0.0])
    parser.add_argument("--seed", type=int, default=21)
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE")
    args = parser.parse_args(argv)
    import json

    from agents import make_agent

    options = {"target_score": None}
    for item in args.option:
        key, value = item.split("=", 1)
        try:
            options[key] = json.loads(value)
        except json.JSONDecodeError:
            options[key] = value
    n = args.players if args.players in player_counts(args.game) else player_counts(args.game)[-1]
    rules = make_rules(args.game, n, **options)
    tables = tables_class(args.game)(args.game, 1, n, seed=args.seed, observation_dtype="float32", **rules.options())
    greedy = make_agent("greedy", seed=0, game=args.game, rules=rules)
    reference = make_agent("search", seed=1, game=args.game, rules=rules, rollouts=args.reference,
                           min_rollouts=max(4, args.reference // 64), prior=None, max_batch=512)
    agents = {"greedy": greedy}
    for r in args.budgets:
        for m in args.margins:
            agents[f"search r={r} margin={m:g}"] = make_agent("search", seed=2, game=args.game, rules=rules,
                                                              rollouts=r, margin=m)
    regret = {name: [] for name in agents}
    differs = {name: 0 for name in agents}
    seconds = {name: 0.0 for name in agents}
    decisions = 0
    while decisions < args.decisions:
        seat = int(tables.current_player[0])
        obs = tables.observe_rows(np.array([0]), np.array([seat]))
        mask = tables.masks[:1].copy()
        greedy_action = int(greedy.act_batch(obs, mask)[0])
        if mask.sum() > 1:
            ctx = BatchContext(tables=tables, table_index=np.array([0]), seats=np.array([seat]))
            reference.act_batch(obs, mask, ctx)
            candidates, values = reference.last_search["candidates"], reference.last_search["values"]
            best = values.max()
            for name, agent in agents.items():
                t0 = time.perf_counter()
                a = greedy_action if agent is greedy else int(agent.act_batch(obs, mask, ctx)[0])
                seconds[name] += time.perf_counter() - t0
                regret[name].append(best - values[int(np.flatnonzero(candidates == a)[0])])
                differs[name] += a != greedy_action
            decisions += 1
        tables.step(np.array([greedy_action]), observe=False, autoreset=True)
    print(f"{args.game}, {n} players, {decisions} decisions, reference search {args.reference} rollouts "
          f"(seed {args.seed})")
    print("| agent | regret (points per decision, 95% CI) | differs from Greedy | s/decision |")
    print("|---|---|---|---|")
    for name in agents:
        r = np.array(regret[name])
        ci = 1.96 * r.std(ddof=1) / np.sqrt(len(r))
        print(f"| {name} | {r.mean():.3f} ± {ci:.3f} | {differs[name] / decisions:.0%} | "
              f"{seconds[name] / decisions:.3f} |", flush=True)


if __name__ == "__main__":
    main()
