------------------------------- MODULE Handoff -------------------------------
(***************************************************************************)
(* The abstract handoff: what every server design of the kit must do, and   *)
(* nothing about how.  Acceptors accept connections 1..NConns, one at a     *)
(* time; a worker takes an accepted connection that nobody has taken yet.   *)
(* Every design's spec (SharedBuffer, TwoLockQueue, ParallelHashTable,      *)
(* Pipes, LockedAccept, ThreadPerClient) keeps the same two variables and   *)
(* TLC checks that it refines this module: each of its steps is a step of   *)
(* Handoff or changes neither variable, and its fairness makes every        *)
(* accepted connection taken.                                               *)
(***************************************************************************)
EXTENDS Naturals

\* ANCHOR: handoff
CONSTANTS NConns, Null

Conns == 1..NConns
Values == Conns \cup {Null}   \* what a worker could be handed: a connection, or nothing

VARIABLES
    accepted,   \* connections accepted so far: 1..accepted exist
    taken       \* how often each value has been handed to a worker

vars == <<accepted, taken>>

Init == accepted = 0 /\ taken = [v \in Values |-> 0]

Accept == accepted < NConns /\ accepted' = accepted + 1 /\ UNCHANGED taken

\* Exactly once, as one step: only an accepted connection, only if untaken.
Take(c) == c \in 1..accepted /\ taken[c] = 0 /\ taken' = [taken EXCEPT ![c] = 1] /\ UNCHANGED accepted

Next == Accept \/ \E c \in Conns : Take(c)

\* Every accepted connection is taken in the end.
Spec == Init /\ [][Next]_vars /\ \A c \in Conns : WF_vars(Take(c))
\* ANCHOR_END: handoff

\* The same promise as invariants and a liveness property; each design states them too.
NoDuplicate == \A c \in Conns : taken[c] <= 1
NoInvented == \A v \in Values : taken[v] > 0 => v \in 1..accepted
EventuallyTaken == \A c \in Conns : (accepted >= c) ~> (taken[c] > 0)
=============================================================================
