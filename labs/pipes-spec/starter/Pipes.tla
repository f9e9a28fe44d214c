-------------------------------- MODULE Pipes --------------------------------
(***************************************************************************)
(* The pipe design of Roussev & Wu (ICN 2001, Sec. 3.6): each worker has   *)
(* its own pipe.  The acceptor keeps a worker-status array A[1..n]; it     *)
(* scans it for a free worker, marks that worker busy and writes the       *)
(* connection into the worker's pipe; the worker reads it, serves it, and  *)
(* marks itself free again.  No lock is shared by all threads: the status  *)
(* array has one writer at a time per entry, by protocol. Two protocol     *)
(* slips, and what they cost depends on the channel:                       *)
(*  - MarkBusy = FALSE: the acceptor forgets to mark the worker busy;      *)
(*  - FreeBeforeTake = TRUE: a worker marks itself free before it has      *)
(*    taken the connection from its pipe.                                  *)
(* With a real pipe (PipeBlocks: a write waits while the pipe is full)     *)
(* both slips are harmless for exactly-once: the pipe queues the extra     *)
(* connection.  With a one-slot mailbox that a write overwrites, the busy  *)
(* flag is all that protects the connection in it, and both slips lose     *)
(* one.                                                                    *)
(***************************************************************************)
EXTENDS Integers, Sequences, FiniteSets

CONSTANTS Acceptor, NWorkers, NConns, PipeCapacity, PipeBlocks, MarkBusy, FreeBeforeTake, Null

ASSUME /\ NWorkers \in Nat \ {0} /\ NConns \in Nat \ {0} /\ PipeCapacity \in Nat \ {0}
       /\ PipeBlocks \in BOOLEAN /\ MarkBusy \in BOOLEAN /\ FreeBeforeTake \in BOOLEAN

Workers == 1..NWorkers
Conns  == 1..NConns
Values == Conns \cup {Null}

(* --algorithm Pipes
variables
    status = [x \in Workers |-> "free"],   \* the WorkerStatus array A[1..n]
    pipe = [x \in Workers |-> <<>>],       \* each worker's own pipe (a sequence)
    accepted = 0,                          \* connections accepted so far: 1..accepted exist
    taken = [v \in Values |-> 0];          \* how often each value was handed to a worker

fair process acceptor = Acceptor
variables conn = Null, at = 1;             \* the connection in hand; the entry of A the scan is at
begin
Accept:
    while accepted < NConns do
        accepted := accepted + 1; conn := accepted; at := 1;
Scan:
        \* TODO: scan A one entry per step for a free worker; mark it busy if MarkBusy;
        \*       write conn into its pipe: if PipeBlocks, wait while the pipe holds PipeCapacity
        \*       connections, then append; otherwise the pipe is a mailbox and the write replaces it.
        \*       If nobody is free, wait until somebody is, and scan again.
        conn := Null;
    end while;
end process;

fair process worker \in Workers
variables got = Null;
begin
Ready:
    while TRUE do
        \* TODO: if FreeBeforeTake, mark yourself free here (the slip); take the first connection
        \*       of your pipe (wait while it is empty), count it in taken, serve it, and only then
        \*       (if not FreeBeforeTake) mark yourself free.
        skip;
    end while;
end process;
end algorithm; *)
\* BEGIN TRANSLATION
\* END TRANSLATION

-----------------------------------------------------------------------------
TypeOK ==
    /\ status \in [Workers -> {"free", "busy"}] /\ accepted \in 0..NConns /\ taken \in [Values -> Nat]
    /\ \A x \in Workers : pipe[x] \in Seq(Conns) /\ Len(pipe[x]) <= PipeCapacity

\* TODO: write the four properties of exactly-once (the book's "Exactly once").
NoDuplicate == TRUE        \* no connection is taken twice
NoInvented == TRUE         \* only accepted connections are taken
NoLoss == TRUE             \* an accepted connection is with the acceptor, in a pipe, or taken
EventuallyTaken == TRUE    \* every accepted connection is taken, sooner or later (a liveness property)

\* Once the acceptor is done, the model may stop (stutter) — fairness still makes every
\* worker that can take, take. Whether everything was served is for your properties to say.
Finished == pc[Acceptor] = "Done" /\ UNCHANGED vars
ServerSpec == Init /\ [][Next \/ Finished]_vars
              /\ WF_vars(acceptor)
              /\ \A x \in Workers : WF_vars(worker(x))

\* TODO (last): this design, seen through accepted and taken, is a behaviour of specs/Handoff.tla.
\* The grader puts Handoff.tla beside your file.
Refines == TRUE
=============================================================================
