----------------------------- MODULE PipesTrace -----------------------------
(***************************************************************************)
(* The pipes (Pipes.tla) against a recorded run.                           *)
(*                                                                         *)
(* A run of a class recorded from outside (a student's) has calls only:   *)
(* HandoffTrace reads it against the pipes seen from outside - a worker    *)
(* takes whichever connection was written into its own pipe, so ANY        *)
(* connection may come out next; the acceptor writes only to a free        *)
(* worker, into a pipe of one, so at most Capacity (the workers) are held  *)
(* at once.                                                                *)
(*                                                                         *)
(* A run of the kit's own classes also has their steps (op "slot", where   *)
(* slot i is worker i), logged on the recorder's clock (PipeHandoff).  The *)
(* design allows these steps only, as Pipes.tla with MarkBusy and without  *)
(* FreeBeforeTake does:                                                    *)
(*   - the acceptor, inside a put, claims a free worker: it marks it busy  *)
(*     and the connection goes into that worker's channel (claim): the     *)
(*     put's effect;                                                       *)
(*   - a worker, inside a take, reads the oldest connection of its own     *)
(*     channel (read): the take's effect, and what the take returns;       *)
(*   - a worker marks itself free (free) only after it has read a          *)
(*     connection since it last did: when it comes back for the next one.  *)
(* So a worker that frees itself before taking (PipesEarlyFree) is off the *)
(* design at its first take, and an acceptor that reads a worker's status  *)
(* without marking it (peek: PipesNoBusy) at its first put, in every run,  *)
(* even the runs where the slip loses nothing.                             *)
(***************************************************************************)
EXTENDS Naturals, Sequences, TLC, TraceLog

VARIABLES pos, buf, call,
          status,   \* each worker's mark: "free" or "busy"               (steps only)
          chan,     \* each worker's channel, oldest first
          served,   \* whether the worker read a connection since it last marked itself free
          owner     \* the thread that is worker i (NoOwner until its first step)

H == INSTANCE HandoffTrace WITH Fifo <- FALSE, Bound <- Capacity

Workers == 0..(Capacity - 1)
NoOwner == -1
stepVars == <<status, chan, served, owner>>

\* The log's next event is step `kind` of a thread in a call `op`, on a worker of the pipes.
StepOf(kind, op) == H!StepOf(kind, op) /\ Log[pos].slot \in Workers

\* The thread t is worker w: w has no other thread, and t is no other worker.
IsWorker(t, w) == /\ owner[w] \in {t, NoOwner}
                  /\ \A v \in Workers \ {w} : owner[v] # t
BecomeWorker(t, w) == owner' = [owner EXCEPT ![w] = t]

\* The acceptor claims a free worker: marked busy, and its connection goes into the worker's channel.
Claim == /\ StepOf("claim", "put")
         /\ LET t == Log[pos].thread  w == Log[pos].slot IN
              /\ ~call[t].effect
              /\ Log[pos].id = call[t].id
              /\ status[w] = "free"
              /\ status' = [status EXCEPT ![w] = "busy"]
              /\ chan' = [chan EXCEPT ![w] = Append(@, Log[pos].id)]
              /\ call' = [call EXCEPT ![t].effect = TRUE]
         /\ pos' = pos + 1
         /\ UNCHANGED <<buf, served, owner>>

\* A worker reads the oldest connection in its own channel: its take's effect.
Read == /\ StepOf("read", "take")
        /\ LET t == Log[pos].thread  w == Log[pos].slot IN
             /\ ~call[t].effect
             /\ IsWorker(t, w)
             /\ chan[w] # <<>>
             /\ Log[pos].id = Head(chan[w])
             /\ chan' = [chan EXCEPT ![w] = Tail(@)]
             /\ served' = [served EXCEPT ![w] = TRUE]
             /\ call' = [call EXCEPT ![t].effect = TRUE, ![t].result = Log[pos].id]
             /\ BecomeWorker(t, w)
        /\ pos' = pos + 1
        /\ UNCHANGED <<buf, status>>

\* A worker that read a connection since it last did marks itself free, as it comes back for the next.
Free == /\ StepOf("free", "take")
        /\ LET t == Log[pos].thread  w == Log[pos].slot IN
             /\ ~call[t].effect
             /\ IsWorker(t, w)
             /\ served[w]
             /\ status' = [status EXCEPT ![w] = "free"]
             /\ served' = [served EXCEPT ![w] = FALSE]
             /\ BecomeWorker(t, w)
        /\ pos' = pos + 1
        /\ UNCHANGED <<buf, call, chan>>

Init == /\ H!Init
        /\ status = [w \in Workers |-> "free"]
        /\ chan = [w \in Workers |-> <<>>]
        /\ served = [w \in Workers |-> FALSE]
        /\ owner = [w \in Workers |-> NoOwner]

\* With steps, each event is read in turn, calls as HandoffTrace reads them, and a call's effect is
\* its step; without, HandoffTrace places each call's effect where some behaviour allows it.
Next == IF H!Stepped THEN \/ (H!Begin \/ H!End) /\ UNCHANGED stepVars
                          \/ Claim \/ Read \/ Free
        ELSE H!Next /\ UNCHANGED stepVars

Spec == Init /\ [][Next]_<<pos, buf, call, status, chan, served, owner>>

NotWholeLog == H!NotWholeLog
Furthest == H!Furthest
=============================================================================
