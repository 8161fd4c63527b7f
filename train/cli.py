"""The training command: ``nos-train --config configs/<name>.yaml [--resume]``.

    nos-train --config configs/quick.yaml            # train, evaluate, print the results table
    nos-train --config configs/quick.yaml --resume   # continue the run from its latest checkpoint
    nos-train --config configs/quick.yaml --overwrite  # start the run again from scratch
    nos-train --config configs/rllib_quick.yaml      # RLlib PPO on Ray (the ray extra; docs/ray.md)
    nos-train --print-defaults                       # every option with its default
    nos-train --config configs/quick.yaml --set run.total_timesteps=200000 --set run.name=try

See ``docs/training.md`` and ``train/config.py`` for the options.
"""

from __future__ import annotations

import argparse
import sys

from nos_env.extras import MissingExtraError, require


FILE_NOTES = {
    "model.zip": "(the trained model: --agents model:PATH)",
    "best_model.zip": "(the best evaluation during training)",
    "tb": "(TensorBoard logs: tensorboard --logdir PATH)",
    "checkpoints": "(resume with --resume)",
    "snapshots": "(the learner's frozen policies in the self-play pool)",
    "rllib_module": "(the trained RLlib module: --agents rllib:PATH)",
    "best_rllib_module": "(the best evaluation during training)",
}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="nos-train", description="Self-play MaskablePPO training for Nos")
    parser.add_argument("--config", help="a YAML config (configs/quick.yaml, configs/full.yaml)")
    parser.add_argument("--resume", action="store_true", help="continue the run from its latest checkpoint")
    parser.add_argument("--overwrite", action="store_true",
                        help="delete the run's folder first, if it exists (otherwise an existing run is an error)")
    parser.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE",
                        help="override one config value (repeatable)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument("--print-defaults", action="store_true", help="print the default config and exit")
    args = parser.parse_args(argv)
    try:  # the config itself needs pyyaml; the engine's extra is checked once the config names it
        require("train", "nos-train", ("yaml",))
    except MissingExtraError as exc:
        parser.error(str(exc))
    from .config import ConfigError, defaults_yaml, from_dict, read_sections

    if args.print_defaults:
        print(defaults_yaml(), end="")
        return
    if not args.config:
        parser.error("--config is required (or --print-defaults)")
    try:
        config = from_dict(read_sections(args.config, args.set), args.config)
    except ConfigError as exc:
        parser.error(str(exc))
    if args.overwrite and args.resume:
        parser.error("--overwrite and --resume contradict each other")
    rllib = config.run.engine == "rllib"
    try:
        if rllib:  # RLlib on Ray (docs/ray.md): the ray extra; SB3 is not needed
            require("ray", "nos-train with run.engine: rllib")
        else:
            require("train", "nos-train")
    except MissingExtraError as exc:
        parser.error(str(exc))
    # torch and SB3 load only once the config is good; on a fresh machine this and numba's first
    # compile of the engine's kernels take minutes, so say so before the silence.
    print("nos-train: loading torch and the engine's kernels (the first run compiles them: a few minutes)...",
          flush=True)
    if rllib:
        from .rllib_trainer import train_rllib as train
    else:
        from .trainer import train

    if args.overwrite and config.run_dir.exists():
        from .runfiles import is_run_folder

        if not is_run_folder(config.run_dir):
            parser.error(f"--overwrite: {config.run_dir} exists but is not a training run's folder; not deleting it")
        import shutil

        shutil.rmtree(config.run_dir)

    try:
        results = train(config, resume=args.resume, progress=not args.quiet)
    except (FileExistsError, FileNotFoundError, ConfigError) as exc:
        print(f"nos-train: error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    except KeyboardInterrupt as exc:
        print(f"\nnos-train: {exc}", file=sys.stderr)
        raise SystemExit(130) from None
    fps = f"{results['fps_last']:,.0f} decisions/s" if results["fps_last"] else "no rollout in this launch"
    print(f"\n{config.run.name}: {results['timesteps']:,} timesteps, {fps}\n")
    print(results["table"])
    print("\nwritten:")
    for path in results["files"]:
        what = FILE_NOTES.get(path.rsplit("/", 1)[-1], "")
        print(f"  {path}{'  ' + what if what else ''}")


if __name__ == "__main__":
    main()
