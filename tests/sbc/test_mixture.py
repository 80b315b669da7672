"""The binary mixture's SBC simulator and fitter name bad settings when they are made."""

from __future__ import annotations

import pytest

from selbayes.sbc import MixtureSBCFitter, MixtureSBCSimulator


@pytest.mark.parametrize("cls, kwargs, match", [
    ("sim", {"n": 3}, "n must be an integer >= 4"),       # redrew forever
    ("sim", {"p": 1.5}, "p must be an integer"),
    ("fit", {"k": True}, "k must be an integer"),
    ("fit", {"tune": -1}, "tune must be an integer >= 0"),
])
def test_mixture_sbc_classes_name_bad_settings(cls, kwargs, match):
    make = MixtureSBCSimulator if cls == "sim" else MixtureSBCFitter
    with pytest.raises(ValueError, match=match):
        make(**kwargs)
