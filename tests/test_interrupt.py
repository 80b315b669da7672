"""Ctrl-C while sampling stops the program (selbayes._interrupt): nutpie's and PyMC's samplers
catch KeyboardInterrupt and return the draws so far, which a fit read as a broken posterior
("tau_mu contains NaN or infinite draws") and the benchmark as a failed fold."""

import os
import signal
import threading

import pytest

from selbayes._interrupt import interrupts_reraised


def _keeps_draws_on_interrupt(sig=signal.SIGINT):
    """A sampler as nutpie's and PyMC's are: the interrupt ends it, its draws so far return."""
    try:
        os.kill(os.getpid(), sig)
        for _ in range(1000):       # the handler runs between bytecodes, within this loop
            pass
    except KeyboardInterrupt:
        return "draws so far"
    return "all draws"


def test_an_interrupt_the_block_caught_is_raised_after_it():
    with pytest.raises(KeyboardInterrupt):
        with interrupts_reraised():
            assert _keeps_draws_on_interrupt() == "draws so far"
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler    # restored


def test_an_error_after_the_interrupt_is_chained_to_it():
    with pytest.raises(KeyboardInterrupt) as info:
        with interrupts_reraised():
            _keeps_draws_on_interrupt()
            raise ValueError("tau_mu contains NaN or infinite draws")
    assert isinstance(info.value.__cause__, ValueError)


def test_sigterm_turned_into_an_interrupt_is_raised_after_it():
    """The command line turns SIGTERM (kill PID) into KeyboardInterrupt: the same path."""
    def interrupt(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        with pytest.raises(KeyboardInterrupt):
            with interrupts_reraised():
                _keeps_draws_on_interrupt(signal.SIGTERM)
        assert signal.getsignal(signal.SIGTERM) is interrupt
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_a_handler_that_goes_on_is_left_alone_and_no_signal_no_raise():
    calls = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: calls.append(signum))
    try:
        with interrupts_reraised():
            assert _keeps_draws_on_interrupt() == "all draws"
        assert calls == [signal.SIGINT]
    finally:
        signal.signal(signal.SIGINT, previous)
    with interrupts_reraised():
        pass


def test_outside_the_main_thread_the_block_runs_as_it_is():
    out = []

    def run():
        with interrupts_reraised():
            out.append(threading.current_thread().name)

    worker = threading.Thread(target=run)
    worker.start()
    worker.join()
    assert len(out) == 1


def test_ctrl_c_during_nutpie_sampling_raises():
    """nutpie itself: an interrupt a second into a long run ends sample_compiled with
    KeyboardInterrupt (it returned NaN-padded draws)."""
    import pymc as pm

    from selbayes.models._nutpie import sample_compiled

    def build():
        with pm.Model() as model:
            pm.Normal("m", 0.0, 1.0, shape=3)
        return model

    def sample(draws):
        return sample_compiled(("interrupt_test",), build, {}, {}, draws=draws, tune=100,
                               chains=1, seed=0, target_accept=0.8, progressbar=False)

    sample(10)      # compiled first: the interrupt is to come while sampling, not compiling
    timer = threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            sample(10**7)
    finally:
        timer.cancel()
