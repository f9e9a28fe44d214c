"""benches/measure.py: the notebooks' one way to run a Java measurement program and read its CSV; a program that
fails is named with what it said, never a bare traceback."""
import pytest

from handofflab.benches import measure
from handofflab.ground.console import LabError


def test_a_measurement_program_runs_and_its_csv_is_read():
    df = measure.java_csv("Theorems", "pht-inserts", 11, 50)
    assert list(df.columns) == ["n", "alpha", "puts", "mean_probes"]
    assert len(df) == 11 and (df["mean_probes"] >= 1).all()   # every insert probes at least its first slot
    assert df["alpha"].is_monotonic_increasing


def test_a_program_that_refuses_its_arguments_is_named_with_what_it_said():
    with pytest.raises(LabError) as e:
        measure.java_csv("Theorems", "pht-inserts", 12, 50)   # 12 is no prime
    assert "Theorems pht-inserts 12 50 failed" in e.value.problem and "usage: Theorems" in e.value.problem
