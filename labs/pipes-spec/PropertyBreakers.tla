------------------------------- MODULE Pipes -------------------------------
(***************************************************************************)
(* Behaviours that each break one property of the lab, and nothing of the  *)
(* pipe design: the grader puts your properties (all below END             *)
(* TRANSLATION) under this module instead of your algorithm, and checks    *)
(* one property at a time, with `Break` naming which. A property that      *)
(* accepts the behaviour meant to break it can never fail, and earns       *)
(* nothing. One acceptor writes connections 1..NConns into worker 1's      *)
(* pipe; worker 1 reads them, except as `Break` says:                      *)
(*  - "NoDuplicate": its first read of connection 1 leaves it in the pipe, *)
(*    so it is read (taken) twice;                                         *)
(*  - "NoInvented": worker 2 is handed nothing (Null) and counts it taken; *)
(*  - "NoLoss": its first read drops connection 1 untaken;                 *)
(*  - "EventuallyTaken": no worker ever reads;                             *)
(*  - "Refines": a read and the next accept are one step.                  *)
(* Same constants, variables, Init, Next, acceptor and worker(x) as the    *)
(* starter's algorithm, so that your properties read them as they read     *)
(* yours. Not PlusCal: written as TLA+ directly.                           *)
(***************************************************************************)
EXTENDS Integers, Sequences, FiniteSets

CONSTANTS Acceptor, NWorkers, NConns, PipeCapacity, PipeBlocks, MarkBusy, FreeBeforeTake, Null, Break

Workers == 1..NWorkers
Conns  == 1..NConns
Values == Conns \cup {Null}

\* BEGIN TRANSLATION (written by hand: there is no PlusCal above)
VARIABLES status, pipe, accepted, taken, pc, conn, at, got

vars == << status, pipe, accepted, taken, pc, conn, at, got >>

ProcSet == {Acceptor} \cup (Workers)

Init == /\ status = [x \in Workers |-> "free"]
        /\ pipe = [x \in Workers |-> <<>>]
        /\ accepted = 0
        /\ taken = [v \in Values |-> 0]
        /\ conn = Null
        /\ at = 1
        /\ got = [self \in Workers |-> Null]
        /\ pc = [self \in ProcSet |-> CASE self = Acceptor -> "Accept"
                                        [] self \in Workers -> "Ready"]

Accept == /\ pc[Acceptor] = "Accept"
          /\ IF accepted < NConns
                THEN /\ accepted' = accepted + 1
                     /\ conn' = accepted + 1
                     /\ pc' = [pc EXCEPT ![Acceptor] = "Write"]
                ELSE /\ pc' = [pc EXCEPT ![Acceptor] = "Done"]
                     /\ UNCHANGED << accepted, conn >>
          /\ UNCHANGED << status, pipe, taken, at, got >>

Write == /\ pc[Acceptor] = "Write"
         /\ Len(pipe[1]) < NConns
         /\ pipe' = [pipe EXCEPT ![1] = Append(pipe[1], conn)]
         /\ conn' = Null
         /\ pc' = [pc EXCEPT ![Acceptor] = "Accept"]
         /\ UNCHANGED << status, accepted, taken, at, got >>

acceptor == Accept \/ Write

\* Worker 1 reads the head of its pipe and counts it taken.
Read == /\ Break # "EventuallyTaken"
        /\ pipe[1] # <<>>
        /\ LET c == Head(pipe[1])
               first == c = 1 /\ taken[1] = 0
           IN  /\ taken' = IF Break = "NoLoss" /\ first THEN taken ELSE [taken EXCEPT ![c] = taken[c] + 1]
               /\ pipe' = IF Break = "NoDuplicate" /\ first THEN pipe ELSE [pipe EXCEPT ![1] = Tail(pipe[1])]
               /\ got' = [got EXCEPT ![1] = c]
        /\ UNCHANGED << status, accepted, pc, conn, at >>

\* Break = "Refines": the read of a connection and the accept of the next one, in one step
ReadAndAccept == /\ Break = "Refines"
                 /\ pipe[1] # <<>> /\ pc[Acceptor] = "Accept" /\ accepted < NConns
                 /\ taken' = [taken EXCEPT ![Head(pipe[1])] = taken[Head(pipe[1])] + 1]
                 /\ pipe' = [pipe EXCEPT ![1] = Tail(pipe[1])]
                 /\ got' = [got EXCEPT ![1] = Head(pipe[1])]
                 /\ accepted' = accepted + 1
                 /\ conn' = accepted + 1
                 /\ pc' = [pc EXCEPT ![Acceptor] = "Write"]
                 /\ UNCHANGED << status, at >>

\* Break = "NoInvented": worker 2 (or 1, if it is alone) is handed nothing, and counts it
Nothing == LET w == IF NWorkers > 1 THEN 2 ELSE 1 IN
           /\ Break = "NoInvented" /\ taken[Null] = 0
           /\ taken' = [taken EXCEPT ![Null] = 1]
           /\ got' = [got EXCEPT ![w] = Null]
           /\ UNCHANGED << status, pipe, accepted, pc, conn, at >>

worker(self) == (self = 1 /\ (Read \/ ReadAndAccept)) \/ (self = (IF NWorkers > 1 THEN 2 ELSE 1) /\ Nothing)

Next == acceptor \/ (\E self \in Workers: worker(self))

Spec == /\ Init /\ [][Next]_vars
        /\ WF_vars(acceptor)
        /\ \A self \in Workers : WF_vars(worker(self))
\* END TRANSLATION
=============================================================================
