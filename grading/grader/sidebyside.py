"""The one rule for the labs graded on speed (the server lab's handoff, the DHT lab's completion
queue): the submission and the kit's own code run in turn, on the same machine, in the same grading,
and the submission's fastest run is compared with the kit's fastest. Load on the grading machine can
only add time to a run, never take it away, so each side's fastest run is the nearest to what its
code costs; a median moves with two slow runs of three. A submission that falls short is measured
again, as many rounds, the kit's run first this time (no side always goes first), before it fails:
a burst of load that hit every run of one side then fails no one."""
from __future__ import annotations

from collections.abc import Iterable


def fastest_ratio(yours: Iterable[float], kits: Iterable[float], larger_is_faster: bool) -> float:
    """The submission's speed as a multiple of the kit's, fastest run against fastest run: 1.0 as
    fast, below 1 slower. `larger_is_faster`: True for a rate or an efficiency, False for a time per
    value. 0.0 when a side has no measured run (runs that failed are left out by the caller)."""
    yours, kits = [v for v in yours if v > 0], [v for v in kits if v > 0]
    if not yours or not kits:
        return 0.0
    return max(yours) / max(kits) if larger_is_faster else min(kits) / min(yours)


def measure_again(ratio: float, target: float, clean: bool) -> bool:
    """Whether a submission gets its second round: it fell short of `target`, and every run so far
    was clean (a run that lost or broke something is a verdict already, not a speed to retry)."""
    return clean and ratio < target
