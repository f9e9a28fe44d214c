---------------------------- MODULE TwoLockQueue ----------------------------
(***************************************************************************)
(* The "concurrent queue" server design of Roussev & Wu (ICN 2001, Table 1 *)
(* and 2): acceptors enqueue accepted connections into a linked list and    *)
(* workers dequeue them, after Michael & Scott's two-lock queue (PODC 1996):*)
(* enqueuers hold only tailLock, dequeuers only headLock, so an acceptor    *)
(* and a worker never wait for each other.  That is safe because of the     *)
(* DUMMY node: head always points at a node already taken, so enqueuers    *)
(* touch only `tail` and the last node's `next`, dequeuers only `head`.     *)
(* With WithDummy = FALSE (variant NoDummyQueue) the empty queue is         *)
(* head = tail = Null, so an acceptor must write `head` and a worker must   *)
(* write `tail`, each under the wrong lock: a node can be lost.             *)
(* Nodes: node 0 is the first dummy; node i carries connection i.           *)
(***************************************************************************)
EXTENDS Integers, FiniteSets

CONSTANTS Acceptors, Workers, NConns, WithDummy, Null

ASSUME /\ Acceptors # {} /\ Workers # {} /\ Acceptors \cap Workers = {}
       /\ NConns \in Nat \ {0} /\ WithDummy \in BOOLEAN

Conns  == 1..NConns
Values == Conns \cup {Null}
Nodes  == 0..NConns

(* --algorithm TwoLockQueue
variables
    next = [n \in Nodes |-> Null],     \* each node's successor
    head = IF WithDummy THEN 0 ELSE Null,
    tail = IF WithDummy THEN 0 ELSE Null,
    headLock = Null,                   \* guards head (workers)
    tailLock = Null,                   \* guards tail (acceptors)
    accepted = 0,
    taken = [v \in Values |-> 0];

define
    \* The first node holding a connection, as a worker sees it.
    First == IF WithDummy THEN next[head] ELSE head
end define;

\* ANCHOR: acceptor
fair process acceptor \in Acceptors
variables conn = Null;
begin
Accept:
    while accepted < NConns do
        accepted := accepted + 1; conn := accepted;
LockTail:
        await tailLock = Null; tailLock := self;
Link:                                  \* the linearization point: the node becomes reachable
        if WithDummy \/ tail # Null then
            next[tail] := conn;
        else
            head := conn;              \* BUG without a dummy: head is the workers' field
        end if;
Swing:
        tail := conn; tailLock := Null; conn := Null;
    end while;
end process;
\* ANCHOR_END: acceptor

\* ANCHOR: worker
fair process worker \in Workers
variables got = Null;
begin
LockHead:
    while TRUE do
        await headLock = Null; headLock := self;
CheckEmpty:
        if First = Null then
            headLock := Null;          \* empty: let go and come back (Java: wait for a signal)
            goto LockHead;
        end if;
Dequeue:                               \* the linearization point
        got := First; taken[First] := taken[First] + 1;
        if WithDummy then
            head := next[head];        \* the taken node is the new dummy
        else
            head := next[head];
Unlink:
            if head = Null then
                tail := Null;          \* BUG without a dummy: tail is the acceptors' field
            end if;
        end if;
Unlock:
        headLock := Null;
    end while;
end process;
\* ANCHOR_END: worker
end algorithm; *)
\* BEGIN TRANSLATION
VARIABLES next, head, tail, headLock, tailLock, accepted, taken, pc

(* define statement *)
First == IF WithDummy THEN next[head] ELSE head

VARIABLES conn, got

vars == << next, head, tail, headLock, tailLock, accepted, taken, pc, conn, 
           got >>

ProcSet == (Acceptors) \cup (Workers)

Init == (* Global variables *)
        /\ next = [n \in Nodes |-> Null]
        /\ head = IF WithDummy THEN 0 ELSE Null
        /\ tail = IF WithDummy THEN 0 ELSE Null
        /\ headLock = Null
        /\ tailLock = Null
        /\ accepted = 0
        /\ taken = [v \in Values |-> 0]
        (* Process acceptor *)
        /\ conn = [self \in Acceptors |-> Null]
        (* Process worker *)
        /\ got = [self \in Workers |-> Null]
        /\ pc = [self \in ProcSet |-> CASE self \in Acceptors -> "Accept"
                                        [] self \in Workers -> "LockHead"]

Accept(self) == /\ pc[self] = "Accept"
                /\ IF accepted < NConns
                      THEN /\ accepted' = accepted + 1
                           /\ conn' = [conn EXCEPT ![self] = accepted']
                           /\ pc' = [pc EXCEPT ![self] = "LockTail"]
                      ELSE /\ pc' = [pc EXCEPT ![self] = "Done"]
                           /\ UNCHANGED << accepted, conn >>
                /\ UNCHANGED << next, head, tail, headLock, tailLock, taken, 
                                got >>

LockTail(self) == /\ pc[self] = "LockTail"
                  /\ tailLock = Null
                  /\ tailLock' = self
                  /\ pc' = [pc EXCEPT ![self] = "Link"]
                  /\ UNCHANGED << next, head, tail, headLock, accepted, taken, 
                                  conn, got >>

Link(self) == /\ pc[self] = "Link"
              /\ IF WithDummy \/ tail # Null
                    THEN /\ next' = [next EXCEPT ![tail] = conn[self]]
                         /\ head' = head
                    ELSE /\ head' = conn[self]
                         /\ next' = next
              /\ pc' = [pc EXCEPT ![self] = "Swing"]
              /\ UNCHANGED << tail, headLock, tailLock, accepted, taken, conn, 
                              got >>

Swing(self) == /\ pc[self] = "Swing"
               /\ tail' = conn[self]
               /\ tailLock' = Null
               /\ conn' = [conn EXCEPT ![self] = Null]
               /\ pc' = [pc EXCEPT ![self] = "Accept"]
               /\ UNCHANGED << next, head, headLock, accepted, taken, got >>

acceptor(self) == Accept(self) \/ LockTail(self) \/ Link(self)
                     \/ Swing(self)

LockHead(self) == /\ pc[self] = "LockHead"
                  /\ headLock = Null
                  /\ headLock' = self
                  /\ pc' = [pc EXCEPT ![self] = "CheckEmpty"]
                  /\ UNCHANGED << next, head, tail, tailLock, accepted, taken, 
                                  conn, got >>

CheckEmpty(self) == /\ pc[self] = "CheckEmpty"
                    /\ IF First = Null
                          THEN /\ headLock' = Null
                               /\ pc' = [pc EXCEPT ![self] = "LockHead"]
                          ELSE /\ pc' = [pc EXCEPT ![self] = "Dequeue"]
                               /\ UNCHANGED headLock
                    /\ UNCHANGED << next, head, tail, tailLock, accepted, 
                                    taken, conn, got >>

Dequeue(self) == /\ pc[self] = "Dequeue"
                 /\ got' = [got EXCEPT ![self] = First]
                 /\ taken' = [taken EXCEPT ![First] = taken[First] + 1]
                 /\ IF WithDummy
                       THEN /\ head' = next[head]
                            /\ pc' = [pc EXCEPT ![self] = "Unlock"]
                       ELSE /\ head' = next[head]
                            /\ pc' = [pc EXCEPT ![self] = "Unlink"]
                 /\ UNCHANGED << next, tail, headLock, tailLock, accepted, 
                                 conn >>

Unlink(self) == /\ pc[self] = "Unlink"
                /\ IF head = Null
                      THEN /\ tail' = Null
                      ELSE /\ TRUE
                           /\ tail' = tail
                /\ pc' = [pc EXCEPT ![self] = "Unlock"]
                /\ UNCHANGED << next, head, headLock, tailLock, accepted, 
                                taken, conn, got >>

Unlock(self) == /\ pc[self] = "Unlock"
                /\ headLock' = Null
                /\ pc' = [pc EXCEPT ![self] = "LockHead"]
                /\ UNCHANGED << next, head, tail, tailLock, accepted, taken, 
                                conn, got >>

worker(self) == LockHead(self) \/ CheckEmpty(self) \/ Dequeue(self)
                   \/ Unlink(self) \/ Unlock(self)

Next == (\E self \in Acceptors: acceptor(self))
           \/ (\E self \in Workers: worker(self))

Spec == /\ Init /\ [][Next]_vars
        /\ \A self \in Acceptors : WF_vars(acceptor(self))
        /\ \A self \in Workers : WF_vars(worker(self))

\* END TRANSLATION

-----------------------------------------------------------------------------
TypeOK ==
    /\ next \in [Nodes -> Nodes \cup {Null}] /\ head \in Nodes \cup {Null} /\ tail \in Nodes \cup {Null}
    /\ headLock \in Workers \cup {Null} /\ tailLock \in Acceptors \cup {Null}
    /\ accepted \in 0..NConns /\ taken \in [Values -> Nat]

RECURSIVE Chain(_, _)
\* The nodes reachable from n, following next at most k times.
Chain(n, k) == IF n = Null \/ k = 0 THEN {} ELSE {n} \cup Chain(next[n], k - 1)
Queued == Chain(First, NConns + 1)

NoDuplicate == \A i \in Conns : taken[i] <= 1
NoInvented == \A v \in Values : taken[v] > 0 => v \in 1..accepted
\* Never lost: with its acceptor, reachable in the queue, or taken.
NoLoss == \A i \in 1..accepted : (\E p \in Acceptors : conn[p] = i) \/ i \in Queued \/ taken[i] > 0
EventuallyTaken == \A i \in Conns : (accepted >= i) ~> (taken[i] > 0)

AllServed == (\A p \in Acceptors : pc[p] = "Done") /\ \A i \in Conns : taken[i] > 0
Finished == AllServed /\ UNCHANGED vars
ServerSpec == Init /\ [][Next \/ Finished]_vars
              /\ \A p \in Acceptors : WF_vars(acceptor(p))
              /\ \A c \in Workers : WF_vars(worker(c))

HandoffSpec == INSTANCE Handoff
Refines == HandoffSpec!Spec
=============================================================================
