"""The end of a run: final evaluations, ``results.json``, ``report.md`` and ``learning_curve.png``."""

from __future__ import annotations

import json
from pathlib import Path

from .config import TrainConfig
from .evaluation import EVAL_SEED, evaluate, read_csv


def results_table(rows: list[dict], unit: str = "chips") -> str:
    """A markdown table: one row per opponent, the model in one seat against the rest (``unit``:
    chips for Nos, points for a family game)."""
    lines = [f"| opponents | deals (hands) | model {unit}/hand | model − opponent ({unit}/hand) | beats it? |",
             "|---|---|---|---|---|"]
    for r in rows:
        significant = abs(r["difference"]) > r["difference_ci95"]
        verdict = ("yes" if r["difference"] > 0 else "no, loses") if significant else "not significant"
        lines.append(f"| {r.get('opponent_label', r['opponent'])} ×{r['seats']} | {r['deals']} ({r['hands']}) | "
                     f"{r['model_chips_per_hand']:+.1f} ± {r['model_ci95']:.1f} | "
                     f"{r['difference']:+.1f} ± {r['difference_ci95']:.1f} | {verdict} |")
    return "\n".join(lines)


def plot_curve(run_dir: Path, curve: list[dict], evals: list[dict], opponent: str) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 7), sharex=True)
    if evals:
        x = [e["timesteps"] for e in evals]
        top.errorbar(x, [e["difference"] for e in evals], yerr=[e["difference_ci95"] for e in evals],
                     marker="o", capsize=3, label=f"model − {opponent} (95% CI)")
        top.axhline(0, color="grey", lw=0.8)
        top.legend(loc="lower right")
    top.set_ylabel("chips per hand")
    top.set_title(f"evaluation: the model against {opponent} (duplicate deals)")
    if curve:
        bottom.plot([c["timesteps"] for c in curve], [c["episode_chips_mean"] for c in curve],
                    label="learner's chips per hand against the training pool (each rollout's hands)")
        bottom.axhline(0, color="grey", lw=0.8)
        bottom.legend(loc="lower right")
    bottom.set_xlabel("learner decisions (timesteps)")
    bottom.set_ylabel("chips per hand")
    fig.tight_layout()
    path = run_dir / "learning_curve.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _replay_lines(kept: Path) -> list[str]:
    """The report's paragraph on replaying the evaluations' hands: where the seeds and agents are,
    and the command that opens each final evaluation's most surprising hand (eval.records)."""
    if not kept.exists():
        return []
    lines = [f"Every evaluation's deals (stream seeds, the agent at every seat, results) are in "
             f"`{kept}/*/tournament.json`."]
    for path in sorted(kept.glob("final-*/surprising.txt")):
        lines.append(f"- {path.parent.name}, its most surprising hand: `{path.read_text().strip()}`")
    return lines + [""]


def _distill_lines(summary: dict | None) -> list[str]:
    """The report's line on the distillation (train/distill.py), if the run had one."""
    if not summary:
        return []
    last = summary["last"]
    target = summary.get("target", "choice")
    fitted = "its choices" if target == "choice" else f"its action values (temperature {summary.get('temperature')})"
    if target == "advantage":
        kept, margin = summary["kept"], summary["margin"]
        hint, unit = summary.get("hint", "Greedy"), summary.get("unit", "points")
        hints = hint + ("'" if hint.endswith("s") else "'s")  # Greedy's, Tactics'
        if margin.get("by") == "tournament":
            gains = ", ".join(f"{r['margin']:g}: {r['gain']:+.2f} ± {r['ci95']:.2f}" for r in margin["margins"])
            held = margin["holdout"]
            chosen = (f"margin {margin['margin']} {unit}, chosen by a duplicate tournament against {margin['opponent']} "
                      f"({margin['deals']:,} deals of seed {margin['seed']}; points a hand by margin: {gains}); on the "
                      f"held-out labels it would have been {held['margin']} points (gain "
                      f"{held['gain']:+.3f} per decision)")
            return [f"- distilled from {summary['teacher']}, the advantages over {hints} move (temperature "
                    f"{summary['temperature']} {unit}): {summary['labels']:,} labels in "
                    f"{summary['collect_seconds']:.0f} s; kept epoch {kept['epoch']} (held-out loss "
                    f"{kept['holdout_loss']:.4f}, before {summary['first']['holdout_loss']:.4f}); {chosen}"]
        return [f"- distilled from {summary['teacher']}, the advantages over {hints} move (temperature "
                f"{summary['temperature']} {unit}): {summary['labels']:,} labels in {summary['collect_seconds']:.0f} s; "
                f"kept epoch {kept['epoch']} (held-out loss {kept['holdout_loss']:.4f}, before {summary['first']['holdout_loss']:.4f}); "
                f"margin {margin['margin']} {unit}: it leaves {hint} at {margin['departs']:.3f} of held-out decisions, "
                f"gaining {margin['gain']:+.3f} {unit} per decision (the labels' best move: "
                f"{kept['holdout_best_gain']:+.3f})"]
    return [f"- distilled from {summary['teacher']} {summary['teacher_options'] or ''}, {fitted}: {summary['labels']:,} labels in "
            f"{summary['collect_seconds']:.0f} s; held-out agreement with the teacher {last['holdout_agree']:.3f} "
            f"(where it departed from the hint: {last['holdout_agree_departures']:.3f}), "
            f"before cloning {summary['first']['holdout_agree']:.3f}"]


def final_report(config: TrainConfig, policy, run_dir: Path, training_seconds: float) -> dict:
    n = config.env.num_players
    rows = []
    # The final evaluations keep their deals' seeds and agents, and the records eval.records names,
    # in evaluations/final-*/ (evaluation.keep_evaluation).
    kept = run_dir / "evaluations"
    if config.eval.final_deals > 0:
        for opponent in config.eval.final_opponents:
            row = evaluate(policy, opponent, config.eval.final_deals, n, seed=EVAL_SEED + 1,
                           num_threads=config.env.num_threads, game=config.env.game,
                           game_options=config.env.game_options, folder=kept / f"final-vs-{opponent}",
                           records=config.eval.records, model=str(run_dir / "model.zip"))
            row["seats"] = n - 1
            rows.append(row)
    best = run_dir / "best_model.zip"
    if config.eval.final_deals > 0 and best.exists():
        from agents.model import load_policy

        row = evaluate(load_policy(best), config.eval.opponent, config.eval.final_deals, n, seed=EVAL_SEED + 1,
                       num_threads=config.env.num_threads, game=config.env.game,
                       game_options=config.env.game_options,
                       folder=kept / f"final-best_model-vs-{config.eval.opponent}", records=config.eval.records,
                       model=str(best))
        row["seats"] = n - 1
        row["opponent_label"] = f"{config.eval.opponent} (best_model.zip)"
        rows.append(row)
    curve = read_csv(run_dir / "curve.csv")
    evals = read_csv(run_dir / "eval.csv")
    png = plot_curve(run_dir, curve, evals, config.eval.opponent)
    fps = [c["fps"] for c in curve]
    results = {
        "run": config.run.name,
        "timesteps": int(curve[-1]["timesteps"]) if curve else 0,
        "training_seconds_this_launch": training_seconds,
        "fps_last": fps[-1] if fps else None,
        "final": rows,
        "eval_history": evals,
        "model": str(run_dir / "model.zip"),
        "learning_curve": str(png),
    }
    distilled = run_dir / "distill" / "summary.json"  # train/distill.py: what the cloning reached
    if distilled.exists():
        results["distill"] = json.loads(distilled.read_text())
    (run_dir / "results.json").write_text(json.dumps(results, indent=1))
    table = results_table(rows, "chips" if config.env.game == "nos" else "points") if rows else "(no final evaluation: eval.final_deals is 0 or no final_opponents)"
    fps_text = f"{fps[-1]:,.0f}" if fps else "n/a"
    report = "\n".join([
        f"# Training report: {config.run.name}" + ("" if config.env.game == "nos" else f" ({config.env.game})"), "",
        f"- timesteps: {results['timesteps']:,}; this launch trained for {training_seconds:.0f} s at {fps_text} "
        f"learner decisions/s (updates included)",
        f"- model: `{run_dir / 'model.zip'}` (play it with `make_agent(\"model:{run_dir / 'model.zip'}\")`)",
        f"- learning curve: `{png}`",
    ] + ([f"- started from `{config.run.init_from}`'s weights (run.init_from), with a fresh optimizer"]
         if config.run.init_from else []) + _distill_lines(results.get("distill")) + [
        "",
        f"Final evaluation: the model in one seat against {n - 1} copies of each opponent, duplicate deals "
        f"(every deal once per seat rotation), 95% confidence intervals over deals.", "",
        table, "",
    ] + _replay_lines(kept))
    (run_dir / "report.md").write_text(report)
    # Every file and folder the run wrote, for the command's last lines.
    names = ["model.zip", "best_model.zip", "report.md", "results.json", "learning_curve.png", "curve.csv",
             "eval.csv", "evaluations", "config.yaml", "checkpoints", "snapshots", "tb"]
    results["files"] = [str(run_dir / name) for name in names if (run_dir / name).exists()]
    results["table"] = table
    return results
