--------------------------- MODULE PipesRefinement ---------------------------
(***************************************************************************)
(* Is a Pipes.tla the pipe design?  The spec lab grades a student's model  *)
(* of Roussev & Wu's pipes; a model whose properties judge well but whose  *)
(* algorithm is another design (a plain queue into one worker that loses a *)
(* connection exactly when a bug's constants are set) must not pass.  So   *)
(* the grader checks that the submitted algorithm refines the kit's: read  *)
(* on the variables the starter declares (status, pipe, accepted, taken,   *)
(* conn, at, got), every step it takes is one to KitMaxSteps steps of the  *)
(* kit's model (specs/Pipes.tla) with the same constants, the kit's        *)
(* control state (its pc) hidden.  TLC cannot quantify over a hidden       *)
(* variable, so the check tracks it: kitPc is the set of the kit's pc      *)
(* values consistent with the run so far (a subset construction), and the  *)
(* invariant is that it never becomes empty.                               *)
(*                                                                         *)
(* The kit's steps are written here as functions of a state record.  They  *)
(* must stay the steps of Pipes.tla: the grader's tests check the kit's    *)
(* own Pipes.tla through this module under every configuration.  This      *)
(* module answers the lab: `./lab release` leaves it out of a student copy *)
(* (rubric.toml's `answers`).                                              *)
(***************************************************************************)
EXTENDS Pipes

VARIABLE kitPc   \* the kit's control states (pc) the run so far can be in

KitProcs == {Acceptor} \cup Workers
KitMaxSteps == 4   \* a step of yours may be up to this many of the kit's (a coarser grain is fine)

\* The design's state, read from the submitted model's variables.
KitShared == [status |-> status, pipe |-> pipe, accepted |-> accepted, taken |-> taken,
              conn |-> conn, at |-> at, got |-> got]

KitInitShared == [status |-> [x \in Workers |-> "free"], pipe |-> [x \in Workers |-> <<>>],
                  accepted |-> 0, taken |-> [v \in Values |-> 0], conn |-> Null, at |-> 1,
                  got |-> [x \in Workers |-> Null]]
KitInitPc == [p \in KitProcs |-> IF p = Acceptor THEN "Accept" ELSE "Ready"]

\* The acceptor's step from control state p and shared state s: a set of <<pc, state>> pairs (empty
\* where it waits).  The labels and effects are those of Pipes.tla's translation.
KitAcceptor(p, s) ==
    LET go(l) == [p EXCEPT ![Acceptor] = l] IN
    CASE p[Acceptor] = "Accept" ->
            IF s.accepted < NConns
            THEN {<<go("Scan"), [s EXCEPT !.accepted = s.accepted + 1, !.conn = s.accepted + 1, !.at = 1]>>}
            ELSE {<<go("Done"), s>>}
      [] p[Acceptor] = "Scan" ->
            IF s.status[s.at] = "free"
            THEN {<<go("Write"), IF MarkBusy THEN [s EXCEPT !.status[s.at] = "busy"] ELSE s>>}
            ELSE IF s.at < NWorkers THEN {<<go("Scan"), [s EXCEPT !.at = s.at + 1]>>}
            ELSE {<<go("AllBusy"), s>>}
      [] p[Acceptor] = "Write" ->
            IF PipeBlocks
            THEN IF Len(s.pipe[s.at]) < PipeCapacity
                 THEN {<<go("Accept"), [s EXCEPT !.pipe[s.at] = Append(@, s.conn), !.conn = Null]>>}
                 ELSE {}
            ELSE {<<go("Accept"), [s EXCEPT !.pipe[s.at] = <<s.conn>>, !.conn = Null]>>}
      [] p[Acceptor] = "AllBusy" ->
            IF \E x \in Workers : s.status[x] = "free" THEN {<<go("Scan"), [s EXCEPT !.at = 1]>>} ELSE {}
      [] OTHER -> {}

\* Worker w's step.
KitWorker(p, s, w) ==
    LET go(l) == [p EXCEPT ![w] = l] IN
    CASE p[w] = "Ready" ->
            {<<go("Read"), IF FreeBeforeTake THEN [s EXCEPT !.status[w] = "free"] ELSE s>>}
      [] p[w] = "Read" ->
            IF s.pipe[w] # <<>>
            THEN LET g == Head(s.pipe[w]) IN
                 {<<go("Serve"), [s EXCEPT !.got[w] = g, !.pipe[w] = Tail(@), !.taken[g] = @ + 1]>>}
            ELSE {}
      [] p[w] = "Serve" ->
            {<<go("Ready"), [s EXCEPT !.status[w] = IF FreeBeforeTake THEN @ ELSE "free", !.got[w] = Null]>>}
      [] OTHER -> {}

KitSucc(c) == KitAcceptor(c[1], c[2]) \cup UNION {KitWorker(c[1], c[2], w) : w \in Workers}

\* Every <<pc, state>> the kit's model reaches from C in at most n steps.
RECURSIVE KitReach(_, _)
KitReach(C, n) == IF n = 0 THEN C ELSE KitReach(C \cup UNION {KitSucc(c) : c \in C}, n - 1)

\* The kit's pcs that can follow one of K, from shared state s to t (none: not a step of the design).
KitTrack(K, s, t) == {c[1] : c \in {c \in KitReach({<<p, s>> : p \in K}, KitMaxSteps) : c[2] = t}}

KitRefInit == Init /\ kitPc = IF KitShared = KitInitShared THEN KitTrack({KitInitPc}, KitShared, KitShared) ELSE {}
YourStep == Next /\ kitPc' = KitTrack(kitPc, KitShared, KitShared')
KitRefSpec == KitRefInit /\ [][YourStep]_<<vars, kitPc>>

\* The invariant the grader checks: each step so far, read on the shared variables, is the design's.
StepsOfTheDesign == kitPc # {}
=============================================================================
