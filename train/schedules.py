"""PPO's learning-rate schedule (``ppo.learning_rate`` and ``ppo.learning_rate_end``).

SB3 calls a schedule with its ``progress_remaining``, ``1 - num_timesteps / total``, where
``total`` is ``run.total_timesteps``: the trainer's ``learn`` asks for the remaining timesteps
with ``reset_num_timesteps=False``, and SB3 adds the timesteps already done back. So the rate is
a function of the run's timestep ``t`` and ``run.total_timesteps`` ``T`` only:

    rate(t) = learning_rate + (learning_rate_end - learning_rate) * min(t / T, 1)

- A run stopped and resumed with the same ``T`` follows the same rates as one that ran through.
- Resumed with a larger ``T`` (``--resume --set run.total_timesteps=...``), the rate is the longer
  schedule's from there: a run of 12M stopped at the end of its decay (the rate at
  ``learning_rate_end``) and resumed to 24M starts again at the 24M schedule's rate at 12M, halfway
  between the two, and falls to ``learning_rate_end`` at 24M. For a long decay give the longer
  ``total_timesteps`` at the first launch.
- SB3 rounds a run up to whole rollouts, so ``t`` ends a little past ``T``: the rate then stays at
  ``learning_rate_end`` (SB3's ``LinearSchedule`` holds its end), never below it (a rate below 0
  would climb the loss).
"""

from __future__ import annotations

from stable_baselines3.common.utils import LinearSchedule

from .config import TrainConfig


def learning_rate(config: TrainConfig):
    """What MaskablePPO's ``learning_rate`` is given: the constant ``ppo.learning_rate`` while
    ``ppo.learning_rate_end`` is null, else the linear schedule above (a picklable SB3
    ``LinearSchedule``, saved with the model)."""
    p = config.ppo
    if p.learning_rate_end is None:
        return p.learning_rate
    return LinearSchedule(float(p.learning_rate), float(p.learning_rate_end), 1.0)
