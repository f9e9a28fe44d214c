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
    pipe = [x \in Workers |-> <<>>],       \* each worker's own pipe
    accepted = 0,
    taken = [v \in Values |-> 0];

\* ANCHOR: acceptor
fair process acceptor = Acceptor
variables conn = Null, at = 1;             \* the entry of A the scan is at
begin
Accept:
    while accepted < NConns do
        accepted := accepted + 1; conn := accepted; at := 1;
Scan:                                       \* one entry of A per step
        if status[at] = "free" then
            if MarkBusy then status[at] := "busy"; end if;
Write:
            if PipeBlocks then
                await Len(pipe[at]) < PipeCapacity;
                pipe[at] := Append(pipe[at], conn);
            else
                pipe[at] := <<conn>>;        \* a mailbox: the write replaces what is there
            end if;
            conn := Null;
        elsif at < NWorkers then
            at := at + 1; goto Scan;
        else
AllBusy:                                    \* nobody free: wait until a worker frees itself
            await \E x \in Workers : status[x] = "free"; at := 1; goto Scan;
        end if;
    end while;
end process;
\* ANCHOR_END: acceptor

\* ANCHOR: worker
fair process worker \in Workers
variables got = Null;
begin
Ready:
    while TRUE do
        if FreeBeforeTake then status[self] := "free"; end if;   \* the slip: free too early
Read:
        await pipe[self] # <<>>;
        got := Head(pipe[self]); pipe[self] := Tail(pipe[self]);
        taken[got] := taken[got] + 1;
Serve:                                                          \* serve `got`, then mark free
        if ~FreeBeforeTake then status[self] := "free"; end if;
        got := Null;
    end while;
end process;
\* ANCHOR_END: worker
end algorithm; *)
\* BEGIN TRANSLATION
VARIABLES status, pipe, accepted, taken, pc, conn, at, got

vars == << status, pipe, accepted, taken, pc, conn, at, got >>

ProcSet == {Acceptor} \cup (Workers)

Init == (* Global variables *)
        /\ status = [x \in Workers |-> "free"]
        /\ pipe = [x \in Workers |-> <<>>]
        /\ accepted = 0
        /\ taken = [v \in Values |-> 0]
        (* Process acceptor *)
        /\ conn = Null
        /\ at = 1
        (* Process worker *)
        /\ got = [self \in Workers |-> Null]
        /\ pc = [self \in ProcSet |-> CASE self = Acceptor -> "Accept"
                                        [] self \in Workers -> "Ready"]

Accept == /\ pc[Acceptor] = "Accept"
          /\ IF accepted < NConns
                THEN /\ accepted' = accepted + 1
                     /\ conn' = accepted'
                     /\ at' = 1
                     /\ pc' = [pc EXCEPT ![Acceptor] = "Scan"]
                ELSE /\ pc' = [pc EXCEPT ![Acceptor] = "Done"]
                     /\ UNCHANGED << accepted, conn, at >>
          /\ UNCHANGED << status, pipe, taken, got >>

Scan == /\ pc[Acceptor] = "Scan"
        /\ IF status[at] = "free"
              THEN /\ IF MarkBusy
                         THEN /\ status' = [status EXCEPT ![at] = "busy"]
                         ELSE /\ TRUE
                              /\ UNCHANGED status
                   /\ pc' = [pc EXCEPT ![Acceptor] = "Write"]
                   /\ at' = at
              ELSE /\ IF at < NWorkers
                         THEN /\ at' = at + 1
                              /\ pc' = [pc EXCEPT ![Acceptor] = "Scan"]
                         ELSE /\ pc' = [pc EXCEPT ![Acceptor] = "AllBusy"]
                              /\ at' = at
                   /\ UNCHANGED status
        /\ UNCHANGED << pipe, accepted, taken, conn, got >>

Write == /\ pc[Acceptor] = "Write"
         /\ IF PipeBlocks
               THEN /\ Len(pipe[at]) < PipeCapacity
                    /\ pipe' = [pipe EXCEPT ![at] = Append(pipe[at], conn)]
               ELSE /\ pipe' = [pipe EXCEPT ![at] = <<conn>>]
         /\ conn' = Null
         /\ pc' = [pc EXCEPT ![Acceptor] = "Accept"]
         /\ UNCHANGED << status, accepted, taken, at, got >>

AllBusy == /\ pc[Acceptor] = "AllBusy"
           /\ \E x \in Workers : status[x] = "free"
           /\ at' = 1
           /\ pc' = [pc EXCEPT ![Acceptor] = "Scan"]
           /\ UNCHANGED << status, pipe, accepted, taken, conn, got >>

acceptor == Accept \/ Scan \/ Write \/ AllBusy

Ready(self) == /\ pc[self] = "Ready"
               /\ IF FreeBeforeTake
                     THEN /\ status' = [status EXCEPT ![self] = "free"]
                     ELSE /\ TRUE
                          /\ UNCHANGED status
               /\ pc' = [pc EXCEPT ![self] = "Read"]
               /\ UNCHANGED << pipe, accepted, taken, conn, at, got >>

Read(self) == /\ pc[self] = "Read"
              /\ pipe[self] # <<>>
              /\ got' = [got EXCEPT ![self] = Head(pipe[self])]
              /\ pipe' = [pipe EXCEPT ![self] = Tail(pipe[self])]
              /\ taken' = [taken EXCEPT ![got'[self]] = taken[got'[self]] + 1]
              /\ pc' = [pc EXCEPT ![self] = "Serve"]
              /\ UNCHANGED << status, accepted, conn, at >>

Serve(self) == /\ pc[self] = "Serve"
               /\ IF ~FreeBeforeTake
                     THEN /\ status' = [status EXCEPT ![self] = "free"]
                     ELSE /\ TRUE
                          /\ UNCHANGED status
               /\ got' = [got EXCEPT ![self] = Null]
               /\ pc' = [pc EXCEPT ![self] = "Ready"]
               /\ UNCHANGED << pipe, accepted, taken, conn, at >>

worker(self) == Ready(self) \/ Read(self) \/ Serve(self)

Next == acceptor
           \/ (\E self \in Workers: worker(self))

Spec == /\ Init /\ [][Next]_vars
        /\ WF_vars(acceptor)
        /\ \A self \in Workers : WF_vars(worker(self))

\* END TRANSLATION

-----------------------------------------------------------------------------
TypeOK ==
    /\ status \in [Workers -> {"free", "busy"}] /\ accepted \in 0..NConns /\ taken \in [Values -> Nat]
    /\ \A x \in Workers : pipe[x] \in Seq(Conns) /\ Len(pipe[x]) <= PipeCapacity

NoDuplicate == \A v \in Values : taken[v] >= 0
NoInvented == \A v \in Values : taken[v] > 0 => v \in Values
\* Never lost: with the acceptor, in a pipe, or taken.
NoLoss == \A i \in 1..accepted :
             \/ conn = i
             \/ \E x \in Workers : \E n \in 1..Len(pipe[x]) : pipe[x][n] = i
             \/ taken[i] > 0
EventuallyTaken == \A i \in Conns : (accepted >= i) ~> (taken[i] > 0)

AllServed == pc[Acceptor] = "Done" /\ \A i \in Conns : taken[i] > 0
Finished == AllServed /\ UNCHANGED vars
ServerSpec == Init /\ [][Next \/ Finished]_vars
              /\ WF_vars(acceptor)
              /\ \A x \in Workers : WF_vars(worker(x))

HandoffSpec == INSTANCE Handoff
Refines == HandoffSpec!Spec
=============================================================================
