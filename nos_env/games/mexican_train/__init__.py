"""Mexican Train on the kernel library (``nos_env.kernels``).

- ``state.py``: the schemas (double-twelve, double-nine; same columns) and column constants;
- ``kernels.py``: the rule kernels, function for function ``nos_env/family/mexican_train.py``;
- ``observe.py``: ``encode``, one seat's observation (both dtypes);
- ``batch.py``: the batch entry points ``nos_env.mexican_train_tables.MexicanTrainTables`` calls.
"""

from ...kernels.core import IDLE, first_illegal, sample_legal, sample_legal_serial
from .state import *  # noqa: F403
from .kernels import apply_action, compute_mask, deal_round, new_episode
from .observe import encode
from .batch import observe_batch, observe_batch_parallel, reset_batch, step_batch, step_batch_parallel
