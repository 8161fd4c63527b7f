"""Optional dependencies: which pip extra a feature needs, and a clear error when it is missing.

``pip install nos-env`` installs the engines, the environments, the agents, the
tournament and the research tools, and nothing imports torch. The ``train`` extra
(``pyproject.toml``) adds torch (pinned), stable-baselines3, sb3-contrib, tensorboard and
pyyaml, for ``python -m train`` and for trained models as agents (``model:PATH``).

Features call :func:`require` before they import anything heavy, so a missing package is
reported once, up front, with the command that installs it.
"""

from __future__ import annotations

import importlib.util

#: Per extra: the module a feature imports -> the distribution that provides it.
EXTRAS: dict[str, dict[str, str]] = {
    "train": {"torch": "torch", "stable_baselines3": "stable-baselines3", "sb3_contrib": "sb3-contrib",
              "tensorboard": "tensorboard", "yaml": "pyyaml"},
    # RLlib self-play, rllib:PATH agents, tournaments and surveys as Ray tasks (docs/ray.md).
    "ray": {"ray": "ray[rllib]", "torch": "torch", "yaml": "pyyaml"},
}


class MissingExtraError(ImportError):
    """A feature needs packages of an extra that is not installed."""


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a finder refused it, or a half-imported module with no spec
        return False


def missing(extra: str, modules: tuple[str, ...] | None = None) -> list[str]:
    """The distributions of ``extra`` (or of its ``modules`` only) that cannot be imported."""
    if extra not in EXTRAS:
        raise ValueError(f"unknown extra {extra!r}; known: {sorted(EXTRAS)}")
    wanted = EXTRAS[extra] if modules is None else {m: EXTRAS[extra][m] for m in modules}
    return [dist for module, dist in wanted.items() if not _importable(module)]


def require(extra: str, feature: str, modules: tuple[str, ...] | None = None) -> None:
    """Raise :class:`MissingExtraError` naming the extra to install unless ``feature`` can run.

    ``modules`` narrows the check to the modules the feature imports (default: the whole extra).
    Only looks the modules up; nothing is imported.
    """
    absent = missing(extra, modules)
    if absent:
        raise MissingExtraError(
            f"{feature} needs the '{extra}' extra, which is not installed (missing: {', '.join(absent)}). "
            f"Install it with: pip install 'nos-env[{extra}]' (from a clone: pip install -e '.[{extra}]')")
