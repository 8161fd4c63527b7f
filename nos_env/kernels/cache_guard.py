"""Keep numba's on-disk cache from running old rules after a kernel source changes.

numba keys each cached function on its own source file only (its stamp: mtime and size).
The fast engines inline their rule kernels (``inline="always"``, ``kernels/core.py``'s
``INLINE``) into the batch loops of ``games/<game>/batch.py``, so the compiled loops carry
code from ``kernels.py``, ``observe.py``, ``core.py``, ``bits.py``... A change to one of those
files alone leaves ``batch.py``'s cache entries valid in numba's eyes, and the old rules would
keep running until the cache is deleted by hand.

:func:`invalidate_stale` closes that gap: it hashes every source file of the kernel layers
(``nos_env/kernels/*.py`` and ``nos_env/games/**/*.py``) and, when the digest differs from
the one recorded at the last check, deletes the cached machine code (``*.nbi``, ``*.nbc``)
of those packages before any kernel is loaded, then records the new digest. A fresh clone
or an unchanged tree costs one hash of about 300 kB of source at import.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent  # nos_env/
PACKAGES = ("kernels", "games")
STAMP = Path("games") / "__pycache__" / "kernel_sources.sha256"


def sources_digest(root: Path = ROOT) -> str:
    """The SHA-256 of every kernel-layer source file under ``root``, names and contents, in a fixed order."""
    digest = hashlib.sha256()
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            digest.update(str(path.relative_to(root)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def invalidate_stale(root: Path = ROOT) -> bool:
    """Delete the kernel layers' numba cache files under ``root`` (the ``nos_env`` folder) if any
    kernel source changed since the last check; True when it deleted. Never raises on a read-only
    install (numba then caches elsewhere)."""
    root = Path(root)
    stamp = root / STAMP
    try:
        current = sources_digest(root)
        if stamp.is_file() and stamp.read_text().strip() == current:
            return False
        for package in (root / name for name in PACKAGES):
            for pattern in ("*.nbi", "*.nbc"):
                for path in package.rglob(pattern):
                    path.unlink(missing_ok=True)
        stamp.parent.mkdir(parents=True, exist_ok=True)
        temporary = stamp.with_suffix(f".{os.getpid()}.tmp")
        temporary.write_text(current + "\n")
        os.replace(temporary, stamp)  # atomic: a second process sees the old stamp or the new
        return True
    except OSError:
        return False
