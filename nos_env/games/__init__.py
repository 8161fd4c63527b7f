"""Per-game rule kernels of the fast engine, one package per game, on ``nos_env.kernels``."""

from ..kernels.cache_guard import invalidate_stale

# Before any game's kernels load: a changed kernel source must not run from a stale cache
# (numba keys a cache entry on its own file, but the batch loops inline the others).
invalidate_stale()
