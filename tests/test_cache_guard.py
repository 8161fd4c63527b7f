"""The numba cache guard (nos_env/kernels/cache_guard.py): a changed kernel source, in any file of
the kernel layers, removes the cached machine code that may have inlined it."""

import shutil
from pathlib import Path

import nos_env
from nos_env.kernels.cache_guard import invalidate_stale

SOURCE = Path(nos_env.__file__).parent


def _tree(tmp_path: Path) -> Path:
    root = tmp_path / "nos_env"
    for package in ("kernels", "games"):
        shutil.copytree(SOURCE / package, root / package, ignore=shutil.ignore_patterns("__pycache__"))
    return root


def _cache_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.suffix in (".nbi", ".nbc"))


def _fake_cache(root: Path) -> None:
    for folder in (root / "games" / "family" / "__pycache__", root / "kernels" / "__pycache__"):
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "batch.step_batch-1.py311.nbi").write_bytes(b"index")
        (folder / "batch.step_batch-1.py311.1.nbc").write_bytes(b"code")


def test_an_unchanged_tree_keeps_its_cache_and_a_changed_source_drops_it(tmp_path):
    root = _tree(tmp_path)
    assert invalidate_stale(root) is True  # first check: no stamp yet
    _fake_cache(root)
    assert invalidate_stale(root) is False
    assert len(_cache_files(root)) == 4  # nothing changed: the cache stays

    # A rule kernel changes, batch.py (whose cache entries hold the inlined copy) does not.
    kernels = root / "games" / "family" / "kernels.py"
    kernels.write_text(kernels.read_text() + "\n# a changed rule\n")
    assert invalidate_stale(root) is True
    assert _cache_files(root) == []
    assert invalidate_stale(root) is False  # the new digest is recorded


def test_a_change_in_the_shared_layer_drops_every_game_cache(tmp_path):
    root = _tree(tmp_path)
    invalidate_stale(root)
    _fake_cache(root)
    core = root / "kernels" / "core.py"
    core.write_text(core.read_text() + "\n")
    assert invalidate_stale(root) is True
    assert _cache_files(root) == []
