"""What any run's folder holds whatever the engine: the resume check, the CSV trimming, and
how a run's folder is recognised (used by train/trainer.py and train/rllib_trainer.py)."""

from __future__ import annotations

import csv
from pathlib import Path

from .config import TrainConfig


#: What a resumed run may change; anything else must match the run's config.yaml.
RESUMABLE = {("run", "total_timesteps"), ("run", "output_dir")} | {("eval", k) for k in
             ("every", "deals", "final_deals", "final_opponents")} | {("output", k) for k in
             ("checkpoint_every", "tensorboard", "progress_bar")} | {("rllib", "address"), ("rllib", "num_cpus")}


def check_resume_config(config: TrainConfig, saved: dict) -> None:
    from .config import ConfigError

    now = config.to_dict()
    # A key the saved config lacks (a run from before the key existed) had its default then.
    defaults = TrainConfig().to_dict()
    changed = [f"{section}.{key}" for section, values in now.items() for key, value in values.items()
               if (section, key) not in RESUMABLE
               and (saved.get(section) or {}).get(key, defaults[section][key]) != value]
    if changed:
        raise ConfigError(f"--resume continues a run with its own settings; these differ from its config.yaml: "
                          f"{', '.join(changed)}. Only run.total_timesteps and the eval and output settings (and "
                          f"rllib.address, rllib.num_cpus) may change on resume")


def truncate_csv(path: Path, timesteps: int) -> None:
    """Drop rows written after the checkpoint being resumed (they belong to a lost future)."""
    if not path.exists():
        return
    with path.open(newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        return
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(r for r in rows if float(r["timesteps"]) <= timesteps)


def is_run_folder(path: Path) -> bool:
    return path.is_dir() and any((path / name).exists() for name in ("config.yaml", "curve.csv", "checkpoints"))
