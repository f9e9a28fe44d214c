---------------------------- MODULE SharedBuffer ----------------------------
(***************************************************************************)
(* The bounded shared buffer: the "shared buffer" server design of Roussev *)
(* and Wu (ICN 2001, Sec. 3; JSA 2006, Sec. 3).  Acceptors put the ids of   *)
(* accepted connections into a ring of Capacity slots; workers take them.   *)
(* The ring is guarded by ONE Java monitor, and this module models the      *)
(* monitor itself, because the bugs this kit teaches live there:            *)
(*   - one lock, held by at most one thread;                                *)
(*   - a wait set: wait() releases the lock and parks the thread;           *)
(*   - notify() removes ONE ARBITRARY waiter from the wait set (HotSpot     *)
(*     picks one; the JLS promises nothing), notifyAll() removes them all;  *)
(*   - a woken thread must win the lock again before it goes on, and then   *)
(*     re-checks its condition (`while`) or does not (`if`).                *)
(* Java twin: java/handoffs/.../MonitorBuffer.java; its buggy twins are     *)
(* NotifyBuffer (NotifyAll = FALSE), IfBuffer (`if` in put and take) and   *)
(* IfInPutBuffer (`if` in put only: two acceptors overfill the ring);     *)
(* WakeWhenFullEndsBuffer (take wakes one waiter, only as full ends) is   *)
(* correct: TLC shows that every put's notifyAll() wakes the rest.         *)
(* specs/catalog.toml says what TLC must report for each model.             *)
(***************************************************************************)
EXTENDS Integers, FiniteSets

CONSTANTS
    Acceptors,      \* acceptor threads (model values)
    Workers,      \* worker threads (model values)
    Capacity,       \* slots in the ring
    NConns,         \* connections accepted in one run: ids 1..NConns
    NotifyAll,      \* TRUE: notifyAll(), FALSE: notify()
    RecheckInPut,   \* put:  TRUE: while (full) wait();  FALSE: if (full) wait();
    RecheckInTake,  \* take: TRUE: while (empty) wait(); FALSE: if (empty) wait();
    TakeWakesOnlyWhenFullEnds, \* take: TRUE: notify() ONE waiter, and only when the buffer stops being full
    Null            \* an empty slot / no thread / no connection

ASSUME /\ Acceptors # {} /\ Workers # {} /\ Acceptors \cap Workers = {}
       /\ Capacity \in Nat \ {0} /\ NConns \in Nat \ {0}
       /\ NotifyAll \in BOOLEAN /\ RecheckInPut \in BOOLEAN /\ RecheckInTake \in BOOLEAN
       /\ TakeWakesOnlyWhenFullEnds \in BOOLEAN

Conns  == 1..NConns
Values == Conns \cup {Null}
Slots  == 0..(Capacity - 1)

(* --algorithm SharedBuffer
variables
    items = [s \in Slots |-> Null],   \* the ring; a taken slot is nulled, as in ArrayBlockingQueue
    putAt = 0, takeAt = 0,            \* next slot to fill / to empty
    count = 0,                        \* filled slots, as the Java field (wrong in buggy variants)
    lock = Null,                      \* the thread holding the monitor
    waitSet = {},                     \* threads in wait() that no notify has removed yet
    accepted = 0,                     \* connections accepted so far: 1..accepted
    taken = [v \in Values |-> 0];     \* how often each value was handed to a worker

\* notify() or notifyAll(), called holding the monitor.
macro Notify() begin
    if waitSet # {} then
        if NotifyAll then
            waitSet := {};
        else
            with w \in waitSet do waitSet := waitSet \ {w}; end with;
        end if;
    end if;
end macro;

\* notify(), whatever NotifyAll says: one waiter, if any.
macro NotifyOne() begin
    if waitSet # {} then
        with w \in waitSet do waitSet := waitSet \ {w}; end with;
    end if;
end macro;

\* wait(): release the monitor and park in the wait set.
macro Wait() begin
    lock := Null; waitSet := waitSet \cup {self};
end macro;

\* ANCHOR: put
fair process acceptor \in Acceptors
variables conn = Null;   \* the connection this acceptor is handing off
begin
Accept:
    while accepted < NConns do
        accepted := accepted + 1; conn := accepted;      \* accept(): the OS serialises it
EnterPut:
        await lock = Null; lock := self;                 \* synchronized put(conn)
CheckFull:
        if count = Capacity then
            Wait();
WakePut:                                                 \* notified: win the monitor back
            await self \notin waitSet /\ lock = Null; lock := self;
            if RecheckInPut then goto CheckFull; end if; \* `while` re-checks; `if` does not
        end if;
Put:                                                     \* the linearization point
        items[putAt] := conn; putAt := (putAt + 1) % Capacity; count := count + 1;
        Notify(); lock := Null; conn := Null;
    end while;
end process;
\* ANCHOR_END: put

\* ANCHOR: take
fair process worker \in Workers
variables got = Null;    \* the connection this worker took last
begin
EnterTake:
    while TRUE do
        await lock = Null; lock := self;                 \* synchronized take()
CheckEmpty:
        if count = 0 then
            Wait();
WakeTake:
            await self \notin waitSet /\ lock = Null; lock := self;
            if RecheckInTake then goto CheckEmpty; end if;
        end if;
Take:                                                    \* the linearization point
        got := items[takeAt]; taken[items[takeAt]] := taken[items[takeAt]] + 1;
        items[takeAt] := Null; takeAt := (takeAt + 1) % Capacity; count := count - 1;
        if TakeWakesOnlyWhenFullEnds then                \* a student's saving: wake one acceptor when room appears
            if count = Capacity - 1 then NotifyOne(); end if;
        else
            Notify();
        end if;
        lock := Null;                                    \* then serve `got`, outside the monitor
    end while;
end process;
\* ANCHOR_END: take
end algorithm; *)
\* BEGIN TRANSLATION
VARIABLES items, putAt, takeAt, count, lock, waitSet, accepted, taken, pc, 
          conn, got

vars == << items, putAt, takeAt, count, lock, waitSet, accepted, taken, pc, 
           conn, got >>

ProcSet == (Acceptors) \cup (Workers)

Init == (* Global variables *)
        /\ items = [s \in Slots |-> Null]
        /\ putAt = 0
        /\ takeAt = 0
        /\ count = 0
        /\ lock = Null
        /\ waitSet = {}
        /\ accepted = 0
        /\ taken = [v \in Values |-> 0]
        (* Process acceptor *)
        /\ conn = [self \in Acceptors |-> Null]
        (* Process worker *)
        /\ got = [self \in Workers |-> Null]
        /\ pc = [self \in ProcSet |-> CASE self \in Acceptors -> "Accept"
                                        [] self \in Workers -> "EnterTake"]

Accept(self) == /\ pc[self] = "Accept"
                /\ IF accepted < NConns
                      THEN /\ accepted' = accepted + 1
                           /\ conn' = [conn EXCEPT ![self] = accepted']
                           /\ pc' = [pc EXCEPT ![self] = "EnterPut"]
                      ELSE /\ pc' = [pc EXCEPT ![self] = "Done"]
                           /\ UNCHANGED << accepted, conn >>
                /\ UNCHANGED << items, putAt, takeAt, count, lock, waitSet, 
                                taken, got >>

EnterPut(self) == /\ pc[self] = "EnterPut"
                  /\ lock = Null
                  /\ lock' = self
                  /\ pc' = [pc EXCEPT ![self] = "CheckFull"]
                  /\ UNCHANGED << items, putAt, takeAt, count, waitSet, 
                                  accepted, taken, conn, got >>

CheckFull(self) == /\ pc[self] = "CheckFull"
                   /\ IF count = Capacity
                         THEN /\ lock' = Null
                              /\ waitSet' = (waitSet \cup {self})
                              /\ pc' = [pc EXCEPT ![self] = "WakePut"]
                         ELSE /\ pc' = [pc EXCEPT ![self] = "Put"]
                              /\ UNCHANGED << lock, waitSet >>
                   /\ UNCHANGED << items, putAt, takeAt, count, accepted, 
                                   taken, conn, got >>

WakePut(self) == /\ pc[self] = "WakePut"
                 /\ self \notin waitSet /\ lock = Null
                 /\ lock' = self
                 /\ IF RecheckInPut
                       THEN /\ pc' = [pc EXCEPT ![self] = "CheckFull"]
                       ELSE /\ pc' = [pc EXCEPT ![self] = "Put"]
                 /\ UNCHANGED << items, putAt, takeAt, count, waitSet, 
                                 accepted, taken, conn, got >>

Put(self) == /\ pc[self] = "Put"
             /\ items' = [items EXCEPT ![putAt] = conn[self]]
             /\ putAt' = (putAt + 1) % Capacity
             /\ count' = count + 1
             /\ IF waitSet # {}
                   THEN /\ IF NotifyAll
                              THEN /\ waitSet' = {}
                              ELSE /\ \E w \in waitSet:
                                        waitSet' = waitSet \ {w}
                   ELSE /\ TRUE
                        /\ UNCHANGED waitSet
             /\ lock' = Null
             /\ conn' = [conn EXCEPT ![self] = Null]
             /\ pc' = [pc EXCEPT ![self] = "Accept"]
             /\ UNCHANGED << takeAt, accepted, taken, got >>

acceptor(self) == Accept(self) \/ EnterPut(self) \/ CheckFull(self)
                     \/ WakePut(self) \/ Put(self)

EnterTake(self) == /\ pc[self] = "EnterTake"
                   /\ lock = Null
                   /\ lock' = self
                   /\ pc' = [pc EXCEPT ![self] = "CheckEmpty"]
                   /\ UNCHANGED << items, putAt, takeAt, count, waitSet, 
                                   accepted, taken, conn, got >>

CheckEmpty(self) == /\ pc[self] = "CheckEmpty"
                    /\ IF count = 0
                          THEN /\ lock' = Null
                               /\ waitSet' = (waitSet \cup {self})
                               /\ pc' = [pc EXCEPT ![self] = "WakeTake"]
                          ELSE /\ pc' = [pc EXCEPT ![self] = "Take"]
                               /\ UNCHANGED << lock, waitSet >>
                    /\ UNCHANGED << items, putAt, takeAt, count, accepted, 
                                    taken, conn, got >>

WakeTake(self) == /\ pc[self] = "WakeTake"
                  /\ self \notin waitSet /\ lock = Null
                  /\ lock' = self
                  /\ IF RecheckInTake
                        THEN /\ pc' = [pc EXCEPT ![self] = "CheckEmpty"]
                        ELSE /\ pc' = [pc EXCEPT ![self] = "Take"]
                  /\ UNCHANGED << items, putAt, takeAt, count, waitSet, 
                                  accepted, taken, conn, got >>

Take(self) == /\ pc[self] = "Take"
              /\ got' = [got EXCEPT ![self] = items[takeAt]]
              /\ taken' = [taken EXCEPT ![items[takeAt]] = taken[items[takeAt]] + 1]
              /\ items' = [items EXCEPT ![takeAt] = Null]
              /\ takeAt' = (takeAt + 1) % Capacity
              /\ count' = count - 1
              /\ IF TakeWakesOnlyWhenFullEnds
                    THEN /\ IF count' = Capacity - 1
                               THEN /\ IF waitSet # {}
                                          THEN /\ \E w \in waitSet:
                                                    waitSet' = waitSet \ {w}
                                          ELSE /\ TRUE
                                               /\ UNCHANGED waitSet
                               ELSE /\ TRUE
                                    /\ UNCHANGED waitSet
                    ELSE /\ IF waitSet # {}
                               THEN /\ IF NotifyAll
                                          THEN /\ waitSet' = {}
                                          ELSE /\ \E w \in waitSet:
                                                    waitSet' = waitSet \ {w}
                               ELSE /\ TRUE
                                    /\ UNCHANGED waitSet
              /\ lock' = Null
              /\ pc' = [pc EXCEPT ![self] = "EnterTake"]
              /\ UNCHANGED << putAt, accepted, conn >>

worker(self) == EnterTake(self) \/ CheckEmpty(self) \/ WakeTake(self)
                   \/ Take(self)

Next == (\E self \in Acceptors: acceptor(self))
           \/ (\E self \in Workers: worker(self))

Spec == /\ Init /\ [][Next]_vars
        /\ \A self \in Acceptors : WF_vars(acceptor(self))
        /\ \A self \in Workers : WF_vars(worker(self))

\* END TRANSLATION

-----------------------------------------------------------------------------
(* Exactly-once delivery, the property every handoff of the kit must have. *)

TypeOK ==
    /\ items \in [Slots -> Values] /\ putAt \in Slots /\ takeAt \in Slots
    /\ count \in -Cardinality(Workers)..(Capacity + Cardinality(Acceptors))
    /\ lock \in ProcSet \cup {Null} /\ waitSet \subseteq ProcSet
    /\ accepted \in 0..NConns /\ taken \in [Values -> Nat]
    /\ conn \in [Acceptors -> Values] /\ got \in [Workers -> Values]

\* ANCHOR: properties
Held(i) == \E p \in Acceptors : conn[p] = i
Buffered(i) == \E s \in Slots : items[s] = i
\* Never duplicated: no connection is handed to two workers (or twice).
NoDuplicate == \A i \in Conns : taken[i] <= 1
\* Never invented: a worker only ever gets a connection that was accepted.
NoInvented == \A v \in Values : taken[v] > 0 => v \in 1..accepted
\* Never lost: an accepted connection is with its acceptor, in the buffer, or taken.
NoLoss == \A i \in 1..accepted : Held(i) \/ Buffered(i) \/ taken[i] > 0
\* Never overfull: a put waits while every slot is full, so the buffer never holds
\* more than Capacity (a ring overfilled overwrites; a list overfilled loses nothing).
Bounded == count <= Capacity
\* Every accepted connection is eventually taken by a worker.
EventuallyTaken == \A i \in Conns : (accepted >= i) ~> (taken[i] > 0)
\* ANCHOR_END: properties

-----------------------------------------------------------------------------
(* Added to the translation.                                               *)

\* Every connection was served and every acceptor stopped: the workers idle in
\* wait() for ever, which is a server at rest, not a deadlock.
AllServed == (\A p \in Acceptors : pc[p] = "Done") /\ \A i \in Conns : taken[i] > 0
Finished == AllServed /\ UNCHANGED vars

\* The spec TLC checks: the translation's, with the server at rest allowed to stay
\* so.  `fair process` gives each thread weak fairness: a thread that can run is
\* not stalled for ever, which is what a Java scheduler gives.
ServerSpec == Init /\ [][Next \/ Finished]_vars
              /\ \A p \in Acceptors : WF_vars(acceptor(p))
              /\ \A c \in Workers : WF_vars(worker(c))

\* ANCHOR: refines
\* Refinement: every behaviour of this design is a behaviour of the abstract Handoff.
HandoffSpec == INSTANCE Handoff
Refines == HandoffSpec!Spec
\* ANCHOR_END: refines
=============================================================================
