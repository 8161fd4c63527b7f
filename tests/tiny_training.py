"""Tiny training setups shared by the tests: ``tiny_family_run(tmp_path, env)`` (a 256-step family run
against Greedy, no evaluation but the final 2 deals) returns its saved ``model.zip``; ``small_model``
builds a seeded Nos model with logging off from a small config; ``tiny_distill_run`` runs a
distillation without PPO; ``flat_weights`` reads a policy's
parameters as one tensor."""

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


def tiny_distill_run(tmp_path: Path, env: str, baseline: str, distill: str, policy: str | None = None) -> Path:
    """Run a distillation without PPO under ``tmp_path``: ``env`` and ``distill`` (and ``policy``, if
    given) are the sections (YAML flow mappings), the opponents and the final report's are
    ``baseline``. Returns the run's folder."""
    config = tmp_path / "tiny.yaml"
    config.write_text(
        f"run: {{name: tiny, total_timesteps: 0, output_dir: {tmp_path}}}\n"
        f"env: {env}\n"
        f"opponents: {{baselines: {{{baseline}: 1.0}}, snapshot_weight: 0.0}}\n"
        "ppo: {n_steps: 4, batch_size: 32, n_epochs: 1}\n"
        f"distill: {distill}\n"
        + (f"policy: {policy}\n" if policy else "")
        + f"eval: {{every: 0, final_deals: 2, final_opponents: [{baseline}]}}\n"
        "output: {checkpoint_every: 0, tensorboard: false, progress_bar: false}\n")
    train_main(["--config", str(config)])
    return tmp_path / "tiny"


#: A small Nos config with the overlapped update (test_overlap, test_learner_process).
SMALL_OVERLAP = {"env": {"num_envs": 16, "num_threads": 1}, "policy": {"width": 16, "pi": [8], "vf": [8]},
                 "opponents": {"baselines": {"random": 1, "greedy": 1}},
                 "ppo": {"n_steps": 4, "batch_size": 32, "n_epochs": 2, "overlap": True}}


def small_model(base: dict, **ppo):
    """The seeded (torch seed 0) MaskablePPO model of the config ``base`` (sections as dicts) with
    ``ppo`` overriding its ppo section, SB3's logging off."""
    import torch as th
    from stable_baselines3.common.logger import configure

    from train.config import from_dict
    from train.trainer import make_env, make_model

    config = from_dict({**base, "ppo": {**base.get("ppo", {}), **ppo}})
    th.manual_seed(0)
    env, _ = make_env(config)
    model = make_model(config, env)
    model.set_logger(configure(None, []))
    return model


def overlap_model(**ppo):
    """small_model of SMALL_OVERLAP."""
    return small_model(SMALL_OVERLAP, **ppo)


def flat_weights(policy):
    """Every parameter of ``policy``, detached and copied, as one flat tensor."""
    import torch as th
    return th.cat([p.detach().flatten().clone() for p in policy.parameters()])
