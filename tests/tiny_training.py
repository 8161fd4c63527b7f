"""A tiny family training run (256 steps against Greedy, no evaluation but the final 2 deals), for
tests that need a saved model: ``tiny_family_run(tmp_path, env)`` returns its ``model.zip``."""

from __future__ import annotations

from pathlib import Path

from train.cli import main as train_main


def tiny_family_run(tmp_path: Path, env: str) -> Path:
    """Train the config whose ``env`` section is ``env`` (a YAML flow mapping) under ``tmp_path``."""
    config = tmp_path / "tiny.yaml"
    config.write_text(
        "run: {name: tiny, total_timesteps: 256, output_dir: " + str(tmp_path) + "}\n"
        "env: " + env + "\n"
        "opponents: {baselines: {greedy: 1.0}}\n"
        "ppo: {n_steps: 8, batch_size: 64, n_epochs: 1}\n"
        "eval: {every: 0, final_deals: 2, final_opponents: [greedy]}\n"
        "output: {checkpoint_every: 0, tensorboard: false, progress_bar: false}\n")
    train_main(["--config", str(config)])
    return tmp_path / "tiny" / "model.zip"
