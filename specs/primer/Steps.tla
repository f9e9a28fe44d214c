------------------------------- MODULE Steps -------------------------------
(***************************************************************************)
(* The primer's first spec: two processes add 1 to a shared counter twice *)
(* each.  A label marks one atomic step: everything between two labels     *)
(* happens at once, and TLC tries every order of the processes' steps.     *)
(* OneStep = TRUE reads and writes `x` in one step (as a lock would make   *)
(* it); FALSE reads it at one label and writes it at the next, and another *)
(* process may step in between: an update is lost.                         *)
(***************************************************************************)
EXTENDS Integers

CONSTANT OneStep

(* --algorithm Steps
variables x = 0;

\* ANCHOR: process
process adder \in {1, 2}
variables seen = 0, round = 0;
begin
Loop:
    while round < 2 do
        if OneStep then
            x := x + 1;               \* read and write: one step
        else
            seen := x;                \* read: one step ...
Write:
            x := seen + 1;            \* ... write: the next
        end if;
Count:
        round := round + 1;
    end while;
end process;
\* ANCHOR_END: process
end algorithm; *)
\* BEGIN TRANSLATION
VARIABLES x, pc, seen, round

vars == << x, pc, seen, round >>

ProcSet == ({1, 2})

Init == (* Global variables *)
        /\ x = 0
        (* Process adder *)
        /\ seen = [self \in {1, 2} |-> 0]
        /\ round = [self \in {1, 2} |-> 0]
        /\ pc = [self \in ProcSet |-> "Loop"]

Loop(self) == /\ pc[self] = "Loop"
              /\ IF round[self] < 2
                    THEN /\ IF OneStep
                               THEN /\ x' = x + 1
                                    /\ pc' = [pc EXCEPT ![self] = "Count"]
                                    /\ seen' = seen
                               ELSE /\ seen' = [seen EXCEPT ![self] = x]
                                    /\ pc' = [pc EXCEPT ![self] = "Write"]
                                    /\ x' = x
                    ELSE /\ pc' = [pc EXCEPT ![self] = "Done"]
                         /\ UNCHANGED << x, seen >>
              /\ round' = round

Count(self) == /\ pc[self] = "Count"
               /\ round' = [round EXCEPT ![self] = round[self] + 1]
               /\ pc' = [pc EXCEPT ![self] = "Loop"]
               /\ UNCHANGED << x, seen >>

Write(self) == /\ pc[self] = "Write"
               /\ x' = seen[self] + 1
               /\ pc' = [pc EXCEPT ![self] = "Count"]
               /\ UNCHANGED << seen, round >>

adder(self) == Loop(self) \/ Count(self) \/ Write(self)

(* Allow infinite stuttering to prevent deadlock on termination. *)
Terminating == /\ \A self \in ProcSet: pc[self] = "Done"
               /\ UNCHANGED vars

Next == (\E self \in {1, 2}: adder(self))
           \/ Terminating

Spec == Init /\ [][Next]_vars

Termination == <>(\A self \in ProcSet: pc[self] = "Done")

\* END TRANSLATION

\* ANCHOR: invariant
\* Once both are done, the counter holds all four additions.
AllCounted == (\A p \in {1, 2} : pc[p] = "Done") => x = 4
\* ANCHOR_END: invariant
=============================================================================
