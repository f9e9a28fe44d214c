------------------------------ MODULE OneSlot ------------------------------
(***************************************************************************)
(* The primer's third spec: refinement.  A handoff through one slot: the  *)
(* acceptor puts a connection when the slot is empty, a worker takes it.   *)
(* It keeps the kit's two variables, accepted and taken, and `Refines`    *)
(* asks TLC whether every step it takes is a step of the abstract handoff  *)
(* (specs/Handoff.tla) or changes neither variable.  ClearOnTake = FALSE  *)
(* is a take that leaves the connection in the slot: a second take of it   *)
(* is no step of Handoff, whose Take hands a connection over only once.    *)
(***************************************************************************)
EXTENDS Integers

CONSTANTS NConns, ClearOnTake, Null

Conns == 1..NConns
Values == Conns \cup {Null}

(* --algorithm OneSlot
variables slot = Null, accepted = 0, taken = [v \in Values |-> 0];

\* ANCHOR: processes
fair process acceptor = "a"
begin
Accept:
    while accepted < NConns do
        await slot = Null;
        accepted := accepted + 1;
        slot := accepted;
    end while;
end process;

fair process worker = "w"
begin
Take:
    while TRUE do
        await slot # Null;
        taken[slot] := taken[slot] + 1;
        if ClearOnTake then slot := Null; end if;
    end while;
end process;
\* ANCHOR_END: processes
end algorithm; *)
\* BEGIN TRANSLATION
VARIABLES slot, accepted, taken, pc

vars == << slot, accepted, taken, pc >>

ProcSet == {"a"} \cup {"w"}

Init == (* Global variables *)
        /\ slot = Null
        /\ accepted = 0
        /\ taken = [v \in Values |-> 0]
        /\ pc = [self \in ProcSet |-> CASE self = "a" -> "Accept"
                                        [] self = "w" -> "Take"]

Accept == /\ pc["a"] = "Accept"
          /\ IF accepted < NConns
                THEN /\ slot = Null
                     /\ accepted' = accepted + 1
                     /\ slot' = accepted'
                     /\ pc' = [pc EXCEPT !["a"] = "Accept"]
                ELSE /\ pc' = [pc EXCEPT !["a"] = "Done"]
                     /\ UNCHANGED << slot, accepted >>
          /\ taken' = taken

acceptor == Accept

Take == /\ pc["w"] = "Take"
        /\ slot # Null
        /\ taken' = [taken EXCEPT ![slot] = taken[slot] + 1]
        /\ IF ClearOnTake
              THEN /\ slot' = Null
              ELSE /\ TRUE
                   /\ slot' = slot
        /\ pc' = [pc EXCEPT !["w"] = "Take"]
        /\ UNCHANGED accepted

worker == Take

Next == acceptor \/ worker

Spec == /\ Init /\ [][Next]_vars
        /\ WF_vars(acceptor)
        /\ WF_vars(worker)

\* END TRANSLATION

\* ANCHOR: refines
HandoffSpec == INSTANCE Handoff         \* the abstract handoff, on this module's accepted and taken
Refines == HandoffSpec!Spec             \* a property: this module's behaviours are Handoff's
\* ANCHOR_END: refines
=============================================================================
