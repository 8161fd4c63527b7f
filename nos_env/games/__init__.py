"""Per-game rule kernels of the fast engine, one package per game, on ``nos_env.kernels``."""
