"""Pictures of the table: a shared base (``base``) and one module per game (``nos``).

``render_mode="rgb_array"`` and the replay page (``nos_env.view``) draw with these.
"""

from ..render import OMNISCIENT
from .base import Scene, paint, png_bytes, to_array

__all__ = ["OMNISCIENT", "Scene", "paint", "png_bytes", "to_array"]
