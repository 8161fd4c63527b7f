"""Chickenfoot on the kernel library (``nos_env.kernels``).

- ``state.py``: the schemas (one per tile set, same columns) and column constants;
- ``kernels.py``: the rule kernels, function for function ``nos_env/family/chickenfoot.py``;
- ``observe.py``: ``encode``, one seat's observation (both dtypes);
- ``batch.py``: the batch entry points ``nos_env.chickenfoot_tables.ChickenfootTables`` calls.
"""

from ...kernels.core import IDLE, first_illegal, sample_legal, sample_legal_serial
from .state import *  # noqa: F403
from .kernels import apply_action, compute_mask, new_episode, open_hand
from .observe import encode
from .batch import load_hand, refresh_mask, observe_batch, observe_batch_parallel, reset_batch, step_batch, step_batch_parallel
