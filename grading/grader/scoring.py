"""The one rule for labs whose submission judges the kit's designs (a spec judging catalogued
variants, a test suite judging handoffs): a right verdict on a buggy design counts only if every
correct design passes (a judge that rejects everything catches nothing), and a pass of a correct
design only if some bug is caught (a judge that accepts everything checks nothing)."""

EARNED = {"pass", "catch"}


def outcome(correct: bool, right: bool, every_correct_passes: bool, some_bug_caught: bool) -> str:
    """What one verdict of the submission's judge amounts to: pass, pass-unearned (nothing is
    caught), false-alarm, catch, catch-unearned (a correct design fails too) or missed."""
    if correct:
        return ("pass" if some_bug_caught else "pass-unearned") if right else "false-alarm"
    return ("catch" if every_correct_passes else "catch-unearned") if right else "missed"


def earns(correct: bool, right: bool, every_correct_passes: bool, some_bug_caught: bool) -> bool:
    """Whether one right-or-wrong verdict of the submission's judge earns its points."""
    return outcome(correct, right, every_correct_passes, some_bug_caught) in EARNED
