"""Training keeps what replays any hand of its evaluations (issue 17 item 4): every evaluation of
nos-train (SB3) writes its deals' stream seeds and the agent at every seat, and the hand records
eval.records names, for Nos and a family game alike: a tiny Draw run here, and Nos's smoke run
(configs/smoke.yaml keeps records) in tests/test_train.py with :func:`check_kept_evaluations`."""

from __future__ import annotations

import json

import pytest

from train.cli import main as train_main
from train.config import ConfigError, from_dict


def replay_points(record: dict) -> list[int]:
    """The chips (Nos) or points (family) each seat won in a record, replayed on the reference engine."""
    plain = {k: v for k, v in record.items() if k != "tournament"}
    if record.get("game") == "draw":
        from nos_env.family.record import replay

        game = replay(plain)
        assert game.done
        return list(game.scores)
    from nos_env.record import replay

    hand = replay(record)  # verified against its own chips and ledger too
    return [c - s for c, s in zip(hand.chips, record["chips_start"])]


@pytest.fixture(scope="module")
def draw_run(tmp_path_factory):
    """A tiny Draw run whose evaluations keep the model's worst deal's records."""
    tmp_path = tmp_path_factory.mktemp("draw-run")
    game, players, opponent = "draw", 2, "greedy"
    config = tmp_path / "tiny.yaml"
    config.write_text(
        "run: {name: tiny, total_timesteps: 256, output_dir: " + str(tmp_path) + "}\n"
        f"env: {{game: {game}, num_players: {players}, num_envs: 16}}\n"
        "ppo: {n_steps: 8, batch_size: 64, n_epochs: 1}\n"
        "opponents: {baselines: {random: 1.0}}\n"
        f"eval: {{every: 128, deals: 2, opponent: {opponent}, final_deals: 2, final_opponents: [random], "
        "records: 'worst:1'}\n"
        "output: {checkpoint_every: 0, tensorboard: false, progress_bar: false}\n")
    train_main(["--config", str(config), "--quiet"])
    return tmp_path / "tiny"


def check_kept_evaluations(run, players: int, opponent: str, timesteps: tuple, deals: int, final: str = "random") -> None:
    """Every evaluation folder: seeds and agents of every deal, and the worst deal's records, which
    replay to the results the tournament reported; the report names the command to view them."""
    kept = run / "evaluations"
    names = sorted(p.name for p in kept.iterdir())
    assert [n for n in names if n.startswith("t")] == [f"t{t:012d}-vs-{opponent}" for t in timesteps]
    assert f"final-vs-{final}" in names
    for name in names:
        folder = kept / name
        summary = json.loads((folder / "tournament.json").read_text())
        assert summary["model"]
        hands = {h["hand"]: h for d in summary["deals_played"] for h in d["hands"]}
        assert len(summary["deals_played"]) == deals and len(hands) == deals * players  # duplicate: every rotation
        for deal in summary["deals_played"]:
            assert isinstance(deal["stream_seed"], int) and isinstance(deal["stream_index"], int)
            against = final if name == f"final-vs-{final}" else opponent
            for h in deal["hands"]:  # the model in one seat, the opponent in the others
                assert h["agents"].count("model") == 1
                assert [a.split("#")[0] for a in h["agents"] if a != "model"] == [against] * (players - 1)
        files = sorted((folder / "records").iterdir())
        assert len(files) == 1  # worst:1
        for record in json.loads(files[0].read_text()):
            facts = record["tournament"]
            assert facts["agents"] == hands[facts["hand"]]["agents"]
            assert replay_points(record) == hands[facts["hand"]]["chips"]
        command = (folder / "surprising.txt").read_text().strip()
        assert command.startswith(f"nos-view {files[0]} --hand ") and command.endswith(" --open")
    report = (run / "report.md").read_text()
    assert f"final-vs-{final}, its most surprising hand: `nos-view {kept / f'final-vs-{final}' / 'records'}" in report


def test_a_tiny_draw_run_keeps_every_evaluations_deals_and_records(draw_run):
    check_kept_evaluations(draw_run, 2, "greedy", (0, 128, 256), deals=2)



def test_eval_records_is_checked():
    assert from_dict({"eval": {"records": "best:3"}}).eval.records == "best:3"
    assert from_dict({"eval": {"records": 1000004}}).eval.records == "1000004"  # YAML's reading of one deal
    with pytest.raises(ConfigError, match="eval.records: must be none, all, worst"):
        from_dict({"eval": {"records": "worse"}})
