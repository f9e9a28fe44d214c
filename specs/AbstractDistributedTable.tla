-------------------- MODULE AbstractDistributedTable --------------------
(***************************************************************************)
(* The abstract distributed table: what Malard & Stewart's table promises *)
(* its origins, and nothing about how (buffers, completion queue, network, *)
(* retries).  Each insert is applied to the table once; an origin hears   *)
(* that an insert completed (so HASH_Wait returns) only after it was       *)
(* applied; an origin's HASH_Flush returns only when every insert of every *)
(* origin was.  DistributedTable refines this module: TLC checks that each *)
(* of its steps is a step of this one or changes none of its variables.  *)
(***************************************************************************)
EXTENDS Naturals

\* ANCHOR: abstract
CONSTANTS Origins, NReqs

Reqs == Origins \X (1..NReqs)            \* <<o, i>>: origin o's i-th insert

VARIABLES
    applied,   \* how often each insert reached the table
    heard,     \* the inserts whose completion reached their origin
    flushed    \* the origins whose HASH_Flush returned

vars == <<applied, heard, flushed>>

Init == applied = [r \in Reqs |-> 0] /\ heard = {} /\ flushed = {}

\* Exactly once, as one step: only an insert not yet applied.
Apply(r) == applied[r] = 0 /\ applied' = [applied EXCEPT ![r] = 1] /\ UNCHANGED <<heard, flushed>>

\* A completion only for an insert that is in the table.
Complete(r) == applied[r] = 1 /\ r \notin heard /\ heard' = heard \cup {r} /\ UNCHANGED <<applied, flushed>>

\* The barrier: only when every insert of every origin is in the table.
Flush(o) == o \notin flushed /\ (\A r \in Reqs : applied[r] = 1)
            /\ flushed' = flushed \cup {o} /\ UNCHANGED <<applied, heard>>

Next == (\E r \in Reqs : Apply(r) \/ Complete(r)) \/ (\E o \in Origins : Flush(o))

\* What may happen, and (Spec) that nothing stops for good while something is left to do: in the
\* end every insert is applied and every origin has flushed.
Safety == Init /\ [][Next]_vars
Spec == Safety /\ WF_vars(Next)
\* ANCHOR_END: abstract
=============================================================================
