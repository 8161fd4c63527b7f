"""Nos on the kernel library (``nos_env.kernels``).

- ``state.py``: Nos's state schema and its column constants (``T_*``, ``S_*``, ``A_*``,
  ``L_*``), phases (``P_*``), payment reasons (``REASONS``, ``R_*``), finished-episode
  statistics (``F_*``);
- ``kernels.py``: the rule kernels (setting, announcing, declaring, playing, closing,
  paying; the legal mask), written to read beside ``engine.py`` and ``layout.py``;
- ``observe.py``: ``encode``, the observation of one seat;
- ``batch.py``: the batch entry points ``FastTables`` calls.

This namespace gathers them (with the shared ``IDLE`` and ``sample_legal``) for
``nos_env.fast_engine.FastTables``, which is the way in for everything else.
"""

from ...kernels.core import IDLE, first_beyond, first_illegal, sample_legal, sample_legal_serial
from .state import *  # noqa: F403
from .kernels import DRAW, _accepted_anywhere, apply_action, compute_mask, new_episode, settle, start_hand
from .observe import encode
from .batch import observe_batch, observe_batch_parallel, reset_batch, step_batch, step_batch_parallel
