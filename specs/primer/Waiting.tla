------------------------------ MODULE Waiting ------------------------------
(***************************************************************************)
(* The primer's second spec: waiting, choice and fairness.  The producer  *)
(* either sets `flag` or does nothing (`either` is a choice: TLC explores *)
(* both); the consumer `await`s the flag, a step that can happen only once *)
(* it holds, and then consumes.  `fair` promises that a process that can   *)
(* take a step is not ignored for ever; UnfairSpec drops that promise.     *)
(***************************************************************************)
EXTENDS Integers

(* --algorithm Waiting
variables flag = FALSE, consumed = FALSE;

\* ANCHOR: processes
fair process producer = "p"
begin
Produce:
    either
        flag := TRUE;                 \* it produces ...
    or
        skip;                         \* ... or it does not, this run
    end either;
end process;

fair process consumer = "c"
begin
Consume:
    await flag;                       \* enabled only once the flag is set
    consumed := TRUE;
end process;
\* ANCHOR_END: processes
end algorithm; *)
\* BEGIN TRANSLATION
VARIABLES flag, consumed, pc

vars == << flag, consumed, pc >>

ProcSet == {"p"} \cup {"c"}

Init == (* Global variables *)
        /\ flag = FALSE
        /\ consumed = FALSE
        /\ pc = [self \in ProcSet |-> CASE self = "p" -> "Produce"
                                        [] self = "c" -> "Consume"]

Produce == /\ pc["p"] = "Produce"
           /\ \/ /\ flag' = TRUE
              \/ /\ TRUE
                 /\ flag' = flag
           /\ pc' = [pc EXCEPT !["p"] = "Done"]
           /\ UNCHANGED consumed

producer == Produce

Consume == /\ pc["c"] = "Consume"
           /\ flag
           /\ consumed' = TRUE
           /\ pc' = [pc EXCEPT !["c"] = "Done"]
           /\ flag' = flag

consumer == Consume

(* Allow infinite stuttering to prevent deadlock on termination. *)
Terminating == /\ \A self \in ProcSet: pc[self] = "Done"
               /\ UNCHANGED vars

Next == producer \/ consumer
           \/ Terminating

Spec == /\ Init /\ [][Next]_vars
        /\ WF_vars(producer)
        /\ WF_vars(consumer)

Termination == <>(\A self \in ProcSet: pc[self] = "Done")

\* END TRANSLATION

\* ANCHOR: properties
Safe == consumed => flag                 \* []Safe: in every state of every run
Eventually == <>consumed                 \* in every run, at some point
Answered == flag ~> consumed             \* whenever flag holds, consumed follows
UnfairSpec == Init /\ [][Next]_vars      \* the same steps, no fairness
\* ANCHOR_END: properties
=============================================================================
