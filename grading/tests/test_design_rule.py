"""The design kind judges what a lock covers, not which object it is (grader/kinds/design.py): a parallel
hash table whose counts are guarded by `synchronized (this)` blocks is the lab's table (issue 68 found it
refused), one whose slots are set or swapped under a lock of the table's is not, however the lock is taken
(a monitor, a field's ReentrantLock, through a helper, past an early return)."""
import subprocess

import pytest

import grader
from grader import classfiles
from grader.kinds.design import _locks_over
from handofflab.java import javabuild

SHAPES = '''
package handofflab.labs.pht;
import handofflab.handoffs.SynchronizedRef;
import java.util.concurrent.locks.ReentrantLock;
public class Shapes {
    SynchronizedRef<Object>[] slots;
    final ReentrantLock lock = new ReentrantLock();
    final Object counts = new Object();
    int n;
    public void lockAround(Object o) { lock.lock(); try { if (n == 0) { return; } slots[0].set(o); } finally { lock.unlock(); } }
    public Object throughAHelper() { synchronized (this) { n--; return helper(); } }
    private Object helper() { return slots[0].swap(null); }
    public synchronized Object synchronizedMethod() { return helper(); }
    public void lateInTheBlock(Object o) { synchronized (this) { if (n == 3) return; n++; slots[3].set(o); } }
    public void onAField(Object o) { synchronized (counts) { slots[4].set(o); } }
    public Object countsOnThis() { synchronized (this) { if (n == 0) return null; n--; } return slots[1].swap(null); }
    public void aSlotsOwnLock(Object o) { SynchronizedRef<Object> s = slots[2]; synchronized (s) { s.set(o); } }
    public void countsThenSlot(Object o) { synchronized (counts) { n++; } slots[5].set(o); synchronized (counts) { n--; } }
}
'''
COVERED = ["lockAround", "throughAHelper", "synchronizedMethod", "lateInTheBlock", "onAField"]
FREE = ["countsOnThis", "aSlotsOwnLock", "countsThenSlot"]


@pytest.fixture(scope="module")
def shapes(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("shapes")
    (tmp / "Shapes.java").write_text(SHAPES)
    subprocess.run(["javac", "-cp", javabuild.classpath("handoffs"), "-d", str(tmp), str(tmp / "Shapes.java")],
                   check=True, capture_output=True, text=True)
    listing = subprocess.run(["javap", "-v", "-p", str(tmp / "handofflab" / "labs" / "pht" / "Shapes.class")],
                             check=True, capture_output=True, text=True).stdout
    return classfiles.parse_javap(listing)


@pytest.mark.parametrize("method", COVERED + FREE)
def test_a_slot_call_under_a_lock_of_the_tables_is_what_is_judged(shapes, method):
    covers = next(t for t in grader.load_rubric("pht").tests if t.kind == "design").covers
    assert covers == ("handofflab/handoffs/SynchronizedRef.",)
    assert _locks_over(shapes[0], method, covers, shapes) == (method in COVERED)
