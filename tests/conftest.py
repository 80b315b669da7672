"""Shared pytest options. Keep minimal: other test files must not depend on anything here."""

import os

if os.environ.get("PYTEST_XDIST_WORKER"):
    # make test runs one xdist worker per core (-n 2 on the 2-core CI machine). Each worker's
    # BLAS would start a thread per core and spin them on the other worker's core: make test
    # took 4 min 4 s that way and 3 min 9 s with one BLAS thread per worker (warm caches, on
    # this project's 2-core machine). The variables reach the processes the tests start.
    for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_var, "1")
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)        # BLAS libraries loaded before this file (none, usually)


def pytest_addoption(parser):
    parser.addoption(
        "--run-notebooks", action="store_true", default=False,
        help="execute every notebook in notebooks/ top to bottom (slow; `make notebooks`)",
    )
