--------------------------- MODULE ThreadPerClient ---------------------------
(***************************************************************************)
(* Thread per client (Roussev & Wu, ICN 2001, Table 1): the acceptor starts *)
(* a new thread for each accepted connection and hands it the socket as a  *)
(* constructor argument.  Thread.start() is the handoff: everything the    *)
(* acceptor wrote before start() is visible to the new thread (JLS 17.4.5, *)
(* happens-before), and no other thread ever sees that socket.  One        *)
(* handler process per connection id.                                     *)
(***************************************************************************)
EXTENDS Integers, FiniteSets

CONSTANTS Acceptor, NConns, Null

ASSUME NConns \in Nat \ {0}

Conns  == 1..NConns
Values == Conns \cup {Null}

(* --algorithm ThreadPerClient
variables
    started = {},      \* handler threads started so far, one per connection
    accepted = 0,
    taken = [v \in Values |-> 0];

fair process acceptor = Acceptor
begin
Accept:
    while accepted < NConns do
        accepted := accepted + 1;
Start:                                       \* new Handler(socket).start()
        started := started \cup {accepted};
    end while;
end process;

fair process handler \in Conns
begin
Serve:                                       \* run(): serve the socket it was given
    await self \in started;
    taken[self] := taken[self] + 1;
end process;
end algorithm; *)
\* BEGIN TRANSLATION
VARIABLES started, accepted, taken, pc

vars == << started, accepted, taken, pc >>

ProcSet == {Acceptor} \cup (Conns)

Init == (* Global variables *)
        /\ started = {}
        /\ accepted = 0
        /\ taken = [v \in Values |-> 0]
        /\ pc = [self \in ProcSet |-> CASE self = Acceptor -> "Accept"
                                        [] self \in Conns -> "Serve"]

Accept == /\ pc[Acceptor] = "Accept"
          /\ IF accepted < NConns
                THEN /\ accepted' = accepted + 1
                     /\ pc' = [pc EXCEPT ![Acceptor] = "Start"]
                ELSE /\ pc' = [pc EXCEPT ![Acceptor] = "Done"]
                     /\ UNCHANGED accepted
          /\ UNCHANGED << started, taken >>

Start == /\ pc[Acceptor] = "Start"
         /\ started' = (started \cup {accepted})
         /\ pc' = [pc EXCEPT ![Acceptor] = "Accept"]
         /\ UNCHANGED << accepted, taken >>

acceptor == Accept \/ Start

Serve(self) == /\ pc[self] = "Serve"
               /\ self \in started
               /\ taken' = [taken EXCEPT ![self] = taken[self] + 1]
               /\ pc' = [pc EXCEPT ![self] = "Done"]
               /\ UNCHANGED << started, accepted >>

handler(self) == Serve(self)

(* Allow infinite stuttering to prevent deadlock on termination. *)
Terminating == /\ \A self \in ProcSet: pc[self] = "Done"
               /\ UNCHANGED vars

Next == acceptor
           \/ (\E self \in Conns: handler(self))
           \/ Terminating

Spec == /\ Init /\ [][Next]_vars
        /\ WF_vars(acceptor)
        /\ \A self \in Conns : WF_vars(handler(self))

Termination == <>(\A self \in ProcSet: pc[self] = "Done")

\* END TRANSLATION

-----------------------------------------------------------------------------
TypeOK == started \subseteq Conns /\ accepted \in 0..NConns /\ taken \in [Values -> Nat]

NoDuplicate == \A i \in Conns : taken[i] <= 1
NoInvented == \A v \in Values : taken[v] > 0 => v \in 1..accepted
\* Never lost: accepted but not yet started (the acceptor holds it), started, or taken.
NoLoss == \A i \in 1..accepted : i = accepted \/ i \in started \/ taken[i] > 0
EventuallyTaken == \A i \in Conns : (accepted >= i) ~> (taken[i] > 0)

AllServed == \A i \in Conns : taken[i] > 0
Finished == AllServed /\ UNCHANGED vars
ServerSpec == Init /\ [][Next \/ Finished]_vars /\ WF_vars(acceptor) /\ \A c \in Conns : WF_vars(handler(c))

HandoffSpec == INSTANCE Handoff
Refines == HandoffSpec!Spec
=============================================================================
