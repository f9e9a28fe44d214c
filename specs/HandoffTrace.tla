---------------------------- MODULE HandoffTrace ----------------------------
(***************************************************************************)
(* Trace validation of a handoff: is one recorded Java run a behaviour of  *)
(* a design, as the design looks from outside its class?                   *)
(*                                                                         *)
(* TraceLog (written for each run by ./lab check trace) holds Log, the     *)
(* run's calls as recorded from outside the class: each put and take as it *)
(* begins and as it returns, in the order of one logical clock.  A call    *)
(* takes effect at one moment between its begin and its end.  A design    *)
(* says two things about those effects, and the module that instantiates  *)
(* this one says which:                                                    *)
(*   Fifo   - a take removes the oldest connection (a ring, a queue), or  *)
(*            any connection (a hash table, the pipes);                    *)
(*   Bound  - a put takes effect only while fewer than Bound connections  *)
(*            are held (0: no bound, the put never waits).                 *)
(* TLC tries every placement of the effects; the run is a behaviour of    *)
(* the design iff some placement reads the whole log.  A call that threw   *)
(* (kind "threw") is read by no step: no design throws.                    *)
(***************************************************************************)
EXTENDS Naturals, Sequences, TLC, TraceLog

CONSTANTS Fifo, Bound

VARIABLES pos,   \* the next event of Log to read
          buf,   \* the connections held, oldest first
          call   \* each thread's call in progress: begun, and whether it took effect yet

vars == <<pos, buf, call>>

Idle == [op |-> "none", id |-> 0, effect |-> FALSE, result |-> 0]

\* The id each take will return, read from its own end event (NoEnd when the run stopped first; a
\* step the kit's class logged inside the call, op "slot", lies between them):
\* a take's effect must remove that connection, so TLC need not guess which one it was.
NoEnd == -2
Returns == [p \in 1..Len(Log) |->
              IF \E q \in p+1..Len(Log) : Log[q].thread = Log[p].thread /\ Log[q].kind = "end"
              THEN Log[CHOOSE q \in p+1..Len(Log) : Log[q].thread = Log[p].thread /\ Log[q].kind = "end"
                                                     /\ \A r \in p+1..q-1 : Log[r].thread # Log[p].thread
                                                                             \/ Log[r].op = "slot"].id
              ELSE NoEnd]

Init == /\ TLCSet(1, 1)  \* register 1: the furthest event any behaviour reached (one initial state)
        /\ pos = 1
        /\ buf = <<>>
        /\ call = [t \in Threads |-> Idle]

\* Whether the log holds the design's own steps (events of op "slot", logged by a kit class that
\* implements Stepped), and whether its next event is such a step of kind `kind` by a thread whose
\* call is an `op` ("any": a put or a take). A design's trace spec adds what its step changes.
Stepped == \E p \in 1..Len(Log) : Log[p].op = "slot"
StepOf(kind, op) == /\ pos <= Len(Log)
                    /\ Log[pos].op = "slot" /\ Log[pos].kind = kind
                    /\ call[Log[pos].thread].op \in IF op = "any" THEN {"put", "take"} ELSE {op}

\* The log's next event is a call beginning.
Begin == /\ pos <= Len(Log)
         /\ Log[pos].kind = "begin"
         /\ call' = [call EXCEPT ![Log[pos].thread] =
                       [op |-> Log[pos].op, id |-> Log[pos].id, effect |-> FALSE, result |-> Returns[pos]]]
         /\ pos' = pos + 1
         /\ UNCHANGED buf

\* A put in progress takes effect: there is room; the connection goes in last.
PutTakesEffect(t) == /\ call[t].op = "put"
                     /\ ~call[t].effect
                     /\ Bound = 0 \/ Len(buf) < Bound
                     /\ buf' = Append(buf, call[t].id)
                     /\ call' = [call EXCEPT ![t].effect = TRUE]
                     /\ UNCHANGED pos

\* The positions a take may remove from: the oldest only, or any.
Takeable == IF Fifo THEN (IF buf = <<>> THEN {} ELSE {1}) ELSE DOMAIN buf

\* A take in progress takes effect: it removes a connection it may take, the one it will return.
TakeTakesEffect(t) == /\ call[t].op = "take"
                      /\ ~call[t].effect
                      /\ \E i \in Takeable :
                           /\ call[t].result \in {buf[i], NoEnd}
                           /\ buf' = SubSeq(buf, 1, i - 1) \o SubSeq(buf, i + 1, Len(buf))
                           /\ call' = [call EXCEPT ![t].effect = TRUE, ![t].result = buf[i]]
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
