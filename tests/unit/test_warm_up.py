"""A worker's warm-up (services.bootstrap.warm_up): what it loads is set aside from the cyclic
garbage collector, and garbage is still collected before and after. Run in a child process: a
freeze is process-wide, and this test process must keep collecting as usual."""

from __future__ import annotations

import subprocess
import sys
import textwrap

CHILD = textwrap.dedent(
    """
    import gc, types, weakref

    from services import bootstrap
    from services.retrieval.embedders import HashingEmbedder

    class Node:
        pass

    def cycle():
        a, b = Node(), Node()
        a.other, b.other = b, a
        return weakref.ref(a)

    gc.disable()  # only the collections asked for below
    before = cycle()  # garbage made before the warm-up
    index = types.SimpleNamespace(embedder=HashingEmbedder(dimension=16))
    bootstrap.warm_up(types.SimpleNamespace(index=index))
    assert before() is None, "garbage from before the warm-up was set aside, not collected"
    frozen = gc.get_freeze_count()
    assert frozen > 10_000, frozen  # modules, the segmenter's and word lists' objects
    after = cycle()  # garbage made after it is still collected
    assert after() is not None
    gc.collect()
    assert after() is None
    print(frozen)
    """
)


def test_warm_up_sets_what_it_loaded_aside_from_the_collector_and_garbage_is_still_collected():
    done = subprocess.run(
        [sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert int(done.stdout.strip()) > 10_000
