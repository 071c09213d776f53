"""The query's vector product runs on one BLAS thread and leaves the process's count as it was."""

from __future__ import annotations

import threading

import numpy as np
from threadpoolctl import threadpool_limits

from services.retrieval import blas_threads
from services.retrieval.blas_threads import blas_threads as current_threads
from services.retrieval.blas_threads import single_threaded


def test_blas_is_single_threaded_inside_and_restored_after() -> None:
    with threadpool_limits(limits=2, user_api="blas"):
        assert current_threads() and set(current_threads()) == {2}
        with single_threaded():
            assert set(current_threads()) == {1}
            with single_threaded():  # nested: the inner exit does not restore yet
                pass
            assert set(current_threads()) == {1}
        assert set(current_threads()) == {2}


def test_the_product_is_bit_for_bit_the_same() -> None:
    rng = np.random.default_rng(3)
    matrix = rng.standard_normal((3000, 512)).astype(np.float32)
    query = rng.standard_normal(512).astype(np.float32)
    with threadpool_limits(limits=2, user_api="blas"):
        threaded = matrix @ query
        with single_threaded():
            single = matrix @ query
    assert np.array_equal(threaded, single)


class _FakeBlas:
    """A BLAS library's thread count, as the controllers expose it (OpenBLAS itself ignores a
    count set from another thread once the main thread has set one, so the sharing logic is
    checked on this stand-in)."""

    def __init__(self, threads: int) -> None:
        self.threads = threads

    def get_num_threads(self) -> int:
        return self.threads

    def set_num_threads(self, threads: int) -> None:
        self.threads = threads


def test_overlapping_threads_restore_the_count_once_the_last_leaves(monkeypatch) -> None:
    """The first thread in leaves first: had each restored what it saw on entering, the second
    (which saw 1) would leave BLAS single-threaded for good."""
    fake = _FakeBlas(2)
    monkeypatch.setattr(blas_threads, "_CONTROLLERS", [fake])
    entered = threading.Event()
    leave = threading.Event()

    def query() -> None:
        with single_threaded():
            entered.set()
            leave.wait()

    first = threading.Thread(target=query)
    first.start()
    entered.wait()
    with single_threaded():
        leave.set()
        first.join()
        assert fake.threads == 1  # still inside one
    assert fake.threads == 2
    assert blas_threads._depth == 0
