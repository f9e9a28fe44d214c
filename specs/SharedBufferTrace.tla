------------------------- MODULE SharedBufferTrace -------------------------
(***************************************************************************)
(* The shared buffer (SharedBuffer.tla) against a recorded run.            *)
(*                                                                         *)
(* A run of a class recorded from outside (a student's) has calls only:   *)
(* HandoffTrace reads it against the buffer seen from outside - a ring of  *)
(* Capacity slots, so a put waits while it is full, and a take removes the *)
(* OLDEST connection.                                                      *)
(*                                                                         *)
(* A run of the kit's own buffers also has their steps (op "slot"), each   *)
(* logged inside the monitor (Ring), so the log orders them as they        *)
(* happened.  The design (MonitorBuffer) allows these steps only:          *)
(*   - a put inserts its connection while a slot is free; a take removes   *)
(*     the oldest connection, and returns it: each call's effect;          *)
(*   - a put waits only while every slot is full, a take only while none   *)
(*     is (a woken thread checks again: the while loop);                   *)
(*   - after its effect, a call wakes ALL waiting threads (notifyAll)      *)
(*     before it returns: the acceptor and the workers wait in one wait    *)
(*     set for different conditions.                                       *)
(* A wait's, a wake-up's and a notify's slot is the count of connections   *)
(* the buffer held then; an insert's or a remove's is its slot of the ring.*)
(* So a buffer that wakes one thread (NotifyBuffer: notify) is off the     *)
(* design at its first notify, in every run, hung or not; a woken thread   *)
(* that goes on without checking (IfBuffer) is off at its insert into a    *)
(* full ring or its remove from an empty one.                              *)
(***************************************************************************)
EXTENDS Naturals, Sequences, TLC, TraceLog

VARIABLES pos, buf, call,
          waiting,  \* the threads inside wait()                          (steps only)
          owes      \* the threads whose call took effect and has not yet woken the waiting ones

H == INSTANCE HandoffTrace WITH Fifo <- TRUE, Bound <- Capacity

Null == -1
stepVars == <<waiting, owes>>

T == Log[pos].thread

\* A put inserts its connection into a free slot: its effect.
Insert == /\ H!StepOf("insert", "put")
          /\ ~call[T].effect /\ T \notin waiting
          /\ Log[pos].id = call[T].id
          /\ Len(buf) < Capacity
          /\ buf' = Append(buf, Log[pos].id)
          /\ call' = [call EXCEPT ![T].effect = TRUE]
          /\ owes' = owes \cup {T}
          /\ pos' = pos + 1
          /\ UNCHANGED waiting

\* A take removes the oldest connection: its effect, and what it returns.
Remove == /\ H!StepOf("remove", "take")
          /\ ~call[T].effect /\ T \notin waiting
          /\ buf # <<>> /\ Log[pos].id = Head(buf)
          /\ buf' = Tail(buf)
          /\ call' = [call EXCEPT ![T].effect = TRUE, ![T].result = Log[pos].id]
          /\ owes' = owes \cup {T}
          /\ pos' = pos + 1
          /\ UNCHANGED waiting

\* A call waits only while it cannot take effect: a put while the ring is full, a take while it is empty.
Wait == /\ H!StepOf("wait", "any")
        /\ ~call[T].effect /\ T \notin waiting
        /\ Log[pos].slot = Len(buf)
        /\ IF call[T].op = "put" THEN Len(buf) = Capacity ELSE buf = <<>>
        /\ waiting' = waiting \cup {T}
        /\ pos' = pos + 1
        /\ UNCHANGED <<buf, call, owes>>

\* A waiting thread wakes, holding the monitor again (then it checks again: Wait, or its effect).
Woke == /\ H!StepOf("woke", "any")
        /\ T \in waiting
        /\ Log[pos].slot = Len(buf)
        /\ waiting' = waiting \ {T}
        /\ pos' = pos + 1
        /\ UNCHANGED <<buf, call, owes>>

\* After its effect, a call wakes every waiting thread.
NotifyAll == /\ H!StepOf("notifyAll", "any")
             /\ T \in owes
             /\ Log[pos].slot = Len(buf)
             /\ owes' = owes \ {T}
             /\ pos' = pos + 1
             /\ UNCHANGED <<buf, call, waiting>>

\* A call returns only once it has woken the others.
End == H!End /\ Log[pos].thread \notin owes /\ UNCHANGED stepVars

Init == H!Init /\ waiting = {} /\ owes = {}

\* With steps, each event is read in turn, calls as HandoffTrace reads them, and a call's effect is
\* its step; without, HandoffTrace places each call's effect where some behaviour allows it.
Next == IF H!Stepped THEN \/ H!Begin /\ UNCHANGED stepVars
                          \/ End
                          \/ Insert \/ Remove \/ Wait \/ Woke \/ NotifyAll
        ELSE H!Next /\ UNCHANGED stepVars

Spec == Init /\ [][Next]_<<pos, buf, call, waiting, owes>>

NotWholeLog == H!NotWholeLog
Furthest == H!Furthest
=============================================================================
