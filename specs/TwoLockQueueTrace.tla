------------------------- MODULE TwoLockQueueTrace -------------------------
(***************************************************************************)
(* The two-lock queue (TwoLockQueue.tla) against a recorded run.           *)
(*                                                                         *)
(* A run of a class recorded from outside (a student's) has calls only:   *)
(* HandoffTrace reads it against the queue seen from outside - a linked    *)
(* list with no bound, so a put never waits, and a take removes the OLDEST *)
(* connection (the node after the dummy).                                  *)
(*                                                                         *)
(* A run of the kit's own queues also has their steps (op "slot"), each    *)
(* logged under the lock of the end it touches, so each end's steps are    *)
(* in the order they happened.  The design allows these steps only:        *)
(*   - a put links its node behind the tail, under the tail lock (link):   *)
(*     its effect;                                                         *)
(*   - a take unlinks the first node after the dummy, under the head lock  *)
(*     (unlink): its effect, and what it returns.                          *)
(* Neither end writes the other's field: the dummy node is what keeps the  *)
(* acceptor off `head` and the workers off `tail`.  So a queue without the *)
(* dummy (NoDummyQueue), whose first put sets `head` under the tail lock,  *)
(* is off the design at that put, in every run, whether or not the race    *)
(* that loses a node happened in it.                                       *)
(***************************************************************************)
EXTENDS Naturals, Sequences, TLC, TraceLog

VARIABLES pos, buf, call

H == INSTANCE HandoffTrace WITH Fifo <- TRUE, Bound <- 0


T == Log[pos].thread

\* A put links its node behind the tail: its effect.
Link == /\ H!StepOf("link", "put")
        /\ ~call[T].effect
        /\ Log[pos].id = call[T].id
        /\ buf' = Append(buf, Log[pos].id)
        /\ call' = [call EXCEPT ![T].effect = TRUE]
        /\ pos' = pos + 1

\* A take unlinks the oldest node: its effect, and what it returns.
Unlink == /\ H!StepOf("unlink", "take")
          /\ ~call[T].effect
          /\ buf # <<>> /\ Log[pos].id = Head(buf)
          /\ buf' = Tail(buf)
          /\ call' = [call EXCEPT ![T].effect = TRUE, ![T].result = Log[pos].id]
          /\ pos' = pos + 1

Init == H!Init

\* With steps, each event is read in turn, calls as HandoffTrace reads them, and a call's effect is
\* its step; without, HandoffTrace places each call's effect where some behaviour allows it.
Next == IF H!Stepped THEN H!Begin \/ H!End \/ Link \/ Unlink
        ELSE H!Next

Spec == Init /\ [][Next]_<<pos, buf, call>>

NotWholeLog == H!NotWholeLog
Furthest == H!Furthest
=============================================================================
