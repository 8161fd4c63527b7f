"""The kernel library every domino game of the fast engine is written on.

- :mod:`.tilesets`: double-six, double-nine and double-twelve from one definition (tile
  order, per-tile tables, how a tile set is stored);
- :mod:`.bits`: the bit helpers numba kernels use on tile sets (one word and multi-word);
- :mod:`.schema`: the named state: the arrays of B tables, their columns as integer constants;
- :mod:`.core`: what every game does the same way (random streams, idle tables, the
  illegal-action policy, pending rewards, the per-hand history, sampling a legal action).

A game's rule kernels live in ``nos_env/games/<game>/``. This package imports no numba
until :mod:`.bits` or :mod:`.core` is imported, so the reference engine can use the tile
sets without it.
"""
