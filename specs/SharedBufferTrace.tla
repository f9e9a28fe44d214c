------------------------- MODULE SharedBufferTrace -------------------------
(***************************************************************************)
(* Trace validation of the shared buffer: is one recorded Java run a       *)
(* behaviour of the design?                                                *)
(*                                                                         *)
(* TraceLog (written for each run by ./lab check trace) holds Log, the     *)
(* run's calls as recorded from outside the class: each put and take as it *)
(* begins and as it returns, in the order of one logical clock.  A call    *)
(* takes effect at one moment between its begin and its end, and the      *)
(* design says what the effect is: the buffer is a ring of Capacity slots  *)
(* (SharedBuffer.tla: putAt, takeAt), so a put waits while it is full and  *)
(* appends, and a take waits while it is empty and removes the OLDEST      *)
(* connection.  TLC tries every placement of the effects; the run is a     *)
(* behaviour of the design iff some placement reads the whole log.        *)
(***************************************************************************)
EXTENDS Naturals, Sequences, TLC, TraceLog

VARIABLES pos,   \* the next event of Log to read
          buf,   \* the connections in the buffer, oldest first
          call   \* each thread's call in progress: begun, and whether it took effect yet

vars == <<pos, buf, call>>

Idle == [op |-> "none", id |-> 0, effect |-> FALSE, result |-> 0]

ASSUME TLCSet(1, 1)  \* register 1: the furthest event any behaviour reached

Init == /\ pos = 1
        /\ buf = <<>>
        /\ call = [t \in Threads |-> Idle]

\* The log's next event is a call beginning.
Begin == /\ pos <= Len(Log)
         /\ Log[pos].kind = "begin"
         /\ call' = [call EXCEPT ![Log[pos].thread] =
                       [op |-> Log[pos].op, id |-> Log[pos].id, effect |-> FALSE, result |-> 0]]
         /\ pos' = pos + 1
         /\ UNCHANGED buf

\* A put in progress takes effect: the ring has room; the connection goes in last.
PutTakesEffect(t) == /\ call[t].op = "put"
                     /\ ~call[t].effect
                     /\ Len(buf) < Capacity
                     /\ buf' = Append(buf, call[t].id)
                     /\ call' = [call EXCEPT ![t].effect = TRUE]
                     /\ UNCHANGED pos

\* A take in progress takes effect: the ring holds something; the oldest comes out.
TakeTakesEffect(t) == /\ call[t].op = "take"
                      /\ ~call[t].effect
                      /\ buf # <<>>
                      /\ buf' = Tail(buf)
                      /\ call' = [call EXCEPT ![t].effect = TRUE, ![t].result = Head(buf)]
                      /\ UNCHANGED pos

\* The log's next event is a call returning: it must have taken effect, and a take must return
\* what its effect took out.
End == /\ pos <= Len(Log)
       /\ Log[pos].kind = "end"
       /\ LET t == Log[pos].thread IN
            /\ call[t].op = Log[pos].op
            /\ call[t].effect
            /\ call[t].op = "take" => call[t].result = Log[pos].id
            /\ call' = [call EXCEPT ![t] = Idle]
       /\ pos' = pos + 1
       /\ UNCHANGED buf

Next == \/ Begin
        \/ End
        \/ \E t \in Threads : PutTakesEffect(t) \/ TakeTakesEffect(t)

Spec == Init /\ [][Next]_vars

\* A behaviour that reads the whole log is what TLC looks for: it reports finding one as a
\* violation of this invariant (here, the good news).
NotWholeLog == pos <= Len(Log)

\* Where the run leaves the design, if it does: the furthest event any behaviour reached.
Furthest == IF pos > TLCGet(1) THEN TLCSet(1, pos) /\ PrintT(<<"furthest", pos>>) ELSE TRUE
=============================================================================
