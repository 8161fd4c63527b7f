"""Nos on the kernel library: its state (``state.py``) and rule kernels."""
