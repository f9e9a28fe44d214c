---------------------------- MODULE LockedAccept ----------------------------
(***************************************************************************)
(* Pre-threaded with a lock around accept (Roussev & Wu, ICN 2001, Table 1; *)
(* Stevens' UNP "preforked/prethreaded, mutex locking around accept"): no   *)
(* acceptor thread at all.  Each worker takes a lock, calls accept(),       *)
(* releases the lock and serves what it accepted.  The handoff is the       *)
(* kernel's accept queue.  With Locked = FALSE (variant UnlockedAccept) the *)
(* workers call accept() concurrently: still exactly once, because the      *)
(* kernel hands each connection to one accept() call.  The lock was there   *)
(* for performance (old kernels woke every thread blocked in accept, the    *)
(* "thundering herd"), not for correctness: a surprising pass.              *)
(***************************************************************************)
EXTENDS Integers, FiniteSets

CONSTANTS Workers, NConns, Locked, Null

ASSUME /\ Workers # {} /\ NConns \in Nat \ {0} /\ Locked \in BOOLEAN

Conns  == 1..NConns
Values == Conns \cup {Null}

(* --algorithm LockedAccept
variables
    lock = Null,
    accepted = 0,      \* connections the kernel has handed to accept() calls
    taken = [v \in Values |-> 0];

fair process worker \in Workers
variables got = Null;
begin
Lock:
    while TRUE do
        if Locked then await lock = Null; lock := self; end if;
AcceptCall:                                   \* accept(): the kernel serialises it
        await accepted < NConns;
        accepted := accepted + 1; got := accepted;
        if Locked then lock := Null; end if;
Serve:
        taken[got] := taken[got] + 1; got := Null;
    end while;
end process;
end algorithm; *)
\* BEGIN TRANSLATION
VARIABLES lock, accepted, taken, pc, got

vars == << lock, accepted, taken, pc, got >>

ProcSet == (Workers)

Init == (* Global variables *)
        /\ lock = Null
        /\ accepted = 0
        /\ taken = [v \in Values |-> 0]
        (* Process worker *)
        /\ got = [self \in Workers |-> Null]
        /\ pc = [self \in ProcSet |-> "Lock"]

Lock(self) == /\ pc[self] = "Lock"
              /\ IF Locked
                    THEN /\ lock = Null
                         /\ lock' = self
                    ELSE /\ TRUE
                         /\ lock' = lock
              /\ pc' = [pc EXCEPT ![self] = "AcceptCall"]
              /\ UNCHANGED << accepted, taken, got >>

AcceptCall(self) == /\ pc[self] = "AcceptCall"
                    /\ accepted < NConns
                    /\ accepted' = accepted + 1
                    /\ got' = [got EXCEPT ![self] = accepted']
                    /\ IF Locked
                          THEN /\ lock' = Null
                          ELSE /\ TRUE
                               /\ lock' = lock
                    /\ pc' = [pc EXCEPT ![self] = "Serve"]
                    /\ taken' = taken

Serve(self) == /\ pc[self] = "Serve"
               /\ taken' = [taken EXCEPT ![got[self]] = taken[got[self]] + 1]
               /\ got' = [got EXCEPT ![self] = Null]
               /\ pc' = [pc EXCEPT ![self] = "Lock"]
               /\ UNCHANGED << lock, accepted >>

worker(self) == Lock(self) \/ AcceptCall(self) \/ Serve(self)

Next == (\E self \in Workers: worker(self))

Spec == /\ Init /\ [][Next]_vars
        /\ \A self \in Workers : WF_vars(worker(self))

\* END TRANSLATION

-----------------------------------------------------------------------------
TypeOK == lock \in Workers \cup {Null} /\ accepted \in 0..NConns /\ taken \in [Values -> Nat]
          /\ got \in [Workers -> Values]

NoDuplicate == \A i \in Conns : taken[i] <= 1
NoInvented == \A v \in Values : taken[v] > 0 => v \in 1..accepted
NoLoss == \A i \in 1..accepted : (\E w \in Workers : got[w] = i) \/ taken[i] > 0
EventuallyTaken == \A i \in Conns : (accepted >= i) ~> (taken[i] > 0)

AllServed == \A i \in Conns : taken[i] > 0
Finished == AllServed /\ UNCHANGED vars
ServerSpec == Init /\ [][Next \/ Finished]_vars /\ \A w \in Workers : WF_vars(worker(w))

HandoffSpec == INSTANCE Handoff
Refines == HandoffSpec!Spec
=============================================================================
