"""BLAS on the calling thread only, for the query's small products.

OpenBLAS runs a matrix–vector product of more than a few thousand elements on its worker
threads. A query's product over a tenant block (1k–30k rows × 512) takes well under a
millisecond on one core, but the workers sleep between queries and, on a loaded machine, wait
for a core to wake up on: the product then took ~6 ms instead of 0.2 (README "Benchmarks").
`single_threaded()` limits BLAS to the calling thread around such a product and restores the
previous count afterwards, so everything else in the process (the ingest embedder's large
products) keeps its threads. The result is bit for bit the same: OpenBLAS splits a gemv's
output rows between threads, it does not change the order of any sum.

OpenBLAS 0.3.31 (numpy's) ignores a count set from a thread other than the main one once the
main thread has set one itself (probed here: the count reads back unchanged); the product is
then threaded as before, with the same result. The CLI, the worker and the benchmark query on
the main thread; Streamlit's script threads set it while its main thread never does.

Nested or concurrent uses share one limit: the first to enter saves the count, the last to
leave restores it (a thread restoring "1" that another had set would leave BLAS single-threaded
for good).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np  # noqa: F401 - loads the BLAS library the controllers below must find
from threadpoolctl import ThreadpoolController

_lock = threading.Lock()
_saved: list[int] = []
_depth = 0
# The BLAS libraries of the process, found once at import: a scan of the loaded libraries costs
# milliseconds, and a controller first made on another thread was measured to set nothing
# (threadpoolctl 3.8.0, OpenBLAS 0.3.31: the count read back unchanged).
_CONTROLLERS: list[Any] = list(ThreadpoolController().select(user_api="blas").lib_controllers)


@contextmanager
def single_threaded() -> Iterator[None]:
    """BLAS calls inside run on the calling thread only."""
    global _depth
    with _lock:
        if _depth == 0:
            _saved[:] = [c.get_num_threads() for c in _CONTROLLERS]
            for controller in _CONTROLLERS:
                controller.set_num_threads(1)
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0:
                for controller, threads in zip(_CONTROLLERS, _saved, strict=True):
                    controller.set_num_threads(threads)


def blas_threads() -> list[int]:
    """The thread count of each loaded BLAS library now (for tests)."""
    return [c.get_num_threads() for c in _CONTROLLERS]
