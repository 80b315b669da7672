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


# The test files that take longest in `make test` from a clean clone (empty compile caches),
# longest first: 50 to 15 s of one worker each, measured with `make test PYTEST_ARGS=
# "--durations=0"` on 2026-12-05 (the whole suite: about 590 s of worker time). make test
# hands whole files to its two workers in the order collected (`--no-loadscope-reorder`);
# starting with the longest ones (longest-processing-time-first scheduling) keeps a worker
# from being handed a 50-second file at the end while the other one has nothing left to do.
# The other files keep pytest's order. A file renamed or removed here fails
# test_conftest_names_existing_files.
LONGEST_FILES = (
    "tests/test_cli.py",
    "tests/estimators/test_linear_stack.py",
    "tests/test_estimator_contract.py",
    "tests/estimators/test_inner_cv.py",
    "tests/models/test_gaussian_two_groups.py",
    "tests/models/test_mixture_pymc.py",
    "tests/models/test_packed_data.py",
    "tests/estimators/test_gaussian.py",
    "tests/adjustment/test_op.py",
    "tests/adjustment/test_fstat.py",
    "tests/estimators/test_naive_bayes.py",
    "tests/test_docstrings.py",
)


def pytest_collection_modifyitems(items):
    rank = {path: i for i, path in enumerate(LONGEST_FILES)}
    # a stable sort: each file's tests keep their order, and the files not named keep theirs
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(rank)))


def pytest_addoption(parser):
    parser.addoption(
        "--run-notebooks", action="store_true", default=False,
        help="execute every notebook in notebooks/ top to bottom (slow; `make notebooks`)",
    )
