---------------------- MODULE ParallelHashTableTrace ----------------------
(***************************************************************************)
(* The parallel hash table (ParallelHashTable.tla) against a recorded run. *)
(*                                                                         *)
(* A run of a class recorded from outside (a student's) has calls only:   *)
(* HandoffTrace reads it against the table seen from outside - Capacity    *)
(* slots, so a put waits while every slot is full, and a take removes ANY  *)
(* held connection (it probes from a random start), never one twice.       *)
(*                                                                         *)
(* A run of the kit's own classes also has their steps (op "slot"), each   *)
(* logged by the slot inside its lock (SynchronizedRef), so the log orders *)
(* a slot's steps as they happened.  The design allows these steps only:   *)
(*   - the acceptor, inside a put, reads a slot (get) and fills an empty   *)
(*     one with its own connection (set): the put's effect;                *)
(*   - a worker, inside a take, swaps a slot with null in one step (swap), *)
(*     and its take returns what the swap took out.                        *)
(* So a worker that reads a slot and clears it in a second step           *)
(* (SplitSwapPht) is off the design at its first read, in every run, even *)
(* one where no two workers met on a slot.  The steps do not show the     *)
(* probe order (double hashing): a put may fill any empty slot here.       *)
(***************************************************************************)
EXTENDS Naturals, Sequences, TLC, TraceLog

VARIABLES pos, buf, call, slot   \* slot: what each slot holds, by id (Null: empty); steps only

H == INSTANCE HandoffTrace WITH Fifo <- FALSE, Bound <- Capacity

Null == -1
Slots == 0..(Capacity - 1)

\* The log's next event is step `kind` of a thread in a call `op`, on a slot of the table.
StepOf(kind, op) == H!StepOf(kind, op) /\ Log[pos].slot \in Slots

\* The acceptor reads a slot: it reads what the slot holds.
Get == /\ StepOf("get", "put")
       /\ Log[pos].id = slot[Log[pos].slot]
       /\ pos' = pos + 1
       /\ UNCHANGED <<buf, call, slot>>

\* It fills an empty slot with its own connection: its put takes effect.
Set == /\ StepOf("set", "put")
       /\ LET t == Log[pos].thread  s == Log[pos].slot IN
            /\ ~call[t].effect
            /\ Log[pos].id = call[t].id
            /\ slot[s] = Null
            /\ slot' = [slot EXCEPT ![s] = Log[pos].id]
            /\ call' = [call EXCEPT ![t].effect = TRUE]
       /\ pos' = pos + 1
       /\ UNCHANGED buf

\* A worker swaps a slot with null and gets what it held; a connection is its take's effect.
Swap == /\ StepOf("swap", "take")
        /\ LET t == Log[pos].thread  s == Log[pos].slot IN
             /\ ~call[t].effect
             /\ Log[pos].id = slot[s]
             /\ slot' = [slot EXCEPT ![s] = Null]
             /\ IF Log[pos].id = Null THEN UNCHANGED call
                ELSE call' = [call EXCEPT ![t].effect = TRUE, ![t].result = Log[pos].id]
        /\ pos' = pos + 1
        /\ UNCHANGED buf

Init == H!Init /\ slot = [s \in Slots |-> Null]

\* With steps, each event is read in turn, calls as HandoffTrace reads them, and a call's effect is
\* its step; without, HandoffTrace places each call's effect where some behaviour allows it.
Next == IF H!Stepped THEN \/ (H!Begin \/ H!End) /\ UNCHANGED slot
                          \/ Get \/ Set \/ Swap
       ELSE H!Next /\ UNCHANGED slot

Spec == Init /\ [][Next]_<<pos, buf, call, slot>>

NotWholeLog == H!NotWholeLog
Furthest == H!Furthest
=============================================================================
