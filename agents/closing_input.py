"""The closing features' settings, checked without torch (issue 19 item 2).

Why a module of its own: ``train/config.py`` validates every config with them, and the rllib
engine's configs must validate without the ``train`` extra (stable-baselines3, sb3-contrib), which
``agents/policy.py`` needs. The features themselves are ``nos_env.fast_engine.closing_features``;
the policy's use of them is ``agents/policy.py`` (``closing_features``, ``closing_logits``).
"""

from __future__ import annotations

import numpy as np

#: The closing features' starting weights (fit_unseen, own_fits, p_correct, close_chips): only the
#: expected payment of a close variant leads at first, a logit per 10 chips (the fitted advantages'
#: temperature), so a closing the network cannot see to be right starts improbable.
CLOSING_WEIGHTS = (0.0, 0.0, 0.0, 1.0)
#: The settlement features' starting weights (close_settle, settle_now), behind the closing ones:
#: a closing's expected final count counts as much as its payment (a logit per 10 chips), so that
#: a close variant starts from its expected payment with the final count included; what a plain
#: play's count costs starts at 0, for PPO to learn.
SETTLEMENT_WEIGHTS = (1.0, 0.0)



def check_closing_features(closing_features, closing_weights, nos_hint: bool,
                           settlement_features=False) -> tuple[bool, tuple]:
    """(``closing_features`` as a bool, the starting weights as floats), refused (ValueError naming
    what is allowed) unless a bool and, when true, the policy is Nos's with the Tactics hint
    (``nos_hint``); ``closing_weights`` None (the defaults, :data:`CLOSING_WEIGHTS`, and
    :data:`SETTLEMENT_WEIGHTS` behind them with ``settlement_features``) or 4 numbers (6 with
    ``settlement_features``, which needs ``closing_features``)."""
    if not isinstance(closing_features, (bool, np.bool_)):
        raise ValueError(f"closing_features must be true or false, got {closing_features!r}")
    if not isinstance(settlement_features, (bool, np.bool_)):
        raise ValueError(f"settlement_features must be true or false, got {settlement_features!r}")
    if closing_weights is None:
        weights = CLOSING_WEIGHTS + (SETTLEMENT_WEIGHTS if settlement_features else ())
    else:
        # (the kernels, only when weights are given)
        from nos_env.fast_engine import CLOSING_FEATURES, SETTLEMENT_FEATURES

        names = CLOSING_FEATURES + (SETTLEMENT_FEATURES if settlement_features else ())
        try:
            weights = tuple(float(w) for w in closing_weights)
        except (TypeError, ValueError):
            weights = ()
        if len(weights) != len(names) or isinstance(closing_weights, (str, bytes)) \
                or any(isinstance(w, bool) for w in closing_weights) or not np.all(np.isfinite(weights)):
            raise ValueError(f"closing_weights must be {len(names)} numbers (the starting weights of "
                             f"{', '.join(names)}), got {closing_weights!r}")
    if closing_features and not nos_hint:
        raise ValueError("closing_features are Nos's plays' (needs the Tactics hint: env.tactics_hint: true, "
                         "Nos's 557 actions)")
    if settlement_features and not closing_features:
        raise ValueError("settlement_features ride behind the closing features: they need closing_features: true")
    return bool(closing_features), weights
