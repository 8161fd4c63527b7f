"""The ten non-Blind family games on the kernel library (``nos_env.kernels``).

- ``state.py``: the one schema of every family game, its column constants, the runtime
  settings (``C_*``) that tell the kernels which game and options they play;
- ``kernels.py``: the rule kernels (dealing, the opening, the legal actions, placing,
  drawing, passing, the end of a hand and the match), beside the reference engine
  ``nos_env/family/``;
- ``observe.py``: ``encode``, the observation of one seat (both dtypes);
- ``batch.py``: the batch entry points ``FamilyTables`` calls.

``nos_env.family_tables.FamilyTables`` is the way in for everything else.
"""

from ...kernels.core import IDLE, first_illegal, sample_legal, sample_legal_serial
from .state import *  # noqa: F403
from .kernels import apply_action, compute_mask, new_episode, settle, start_hand
from .observe import encode
from .batch import (load_hand, observe_batch, observe_batch_parallel, reset_batch, step_batch,
                    step_batch_parallel)
