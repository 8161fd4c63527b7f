"""``python -m train --config configs/quick.yaml`` (also installed as ``nos-train``)."""

from .cli import main

main()
