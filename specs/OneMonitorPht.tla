----------------------------- MODULE OneMonitorPht -----------------------------
(***************************************************************************)
(* The parallel hash table as the PHT lab builds it: ParallelHashTable.tla's *)
(* slots and probes (here the set `table`, as in FastPht.tla: a worker's    *)
(* probe finds a connection that is there), and its two counts, free slots  *)
(* and filled slots, guarded by ONE monitor with ONE wait set:              *)
(*   put:  lock; while free = 0 wait; free--; unlock; insert;               *)
(*         lock; filled++; notifyAll(); unlock                              *)
(*   take: lock; while filled = 0 wait; filled--; unlock; claim one by      *)
(*         probing; lock; free++; notifyAll() or notify(); unlock           *)
(* The acceptor waits in that wait set for a free slot, the workers for a   *)
(* filled one: two kinds of waiter in one set.  TakeWakesAll = FALSE is     *)
(* NotifyPht: take's notify() may wake a worker, which finds nothing filled *)
(* and waits again, while the acceptor sleeps beside a free slot.  Both     *)
(* kinds wait at once only when every slot's item is claimed and not yet   *)
(* freed and one worker more comes: more workers than slots.  The kit's     *)
(* ParallelHashTable has a monitor per count (Permits), whose waiters all   *)
(* wait for one thing, and ParallelHashTable.tla writes its waits as await. *)
(* specs/catalog.toml says what TLC must report for each model.             *)
(***************************************************************************)
EXTENDS Integers, FiniteSets

CONSTANTS
    Acceptor,       \* the one acceptor thread (a model value)
    Workers,        \* worker threads (model values)
    Capacity,       \* slots in the table
    NConns,         \* connections accepted in one run: ids 1..NConns
    TakeWakesAll,   \* take after freeing a slot: TRUE notifyAll(), FALSE notify()
    Null            \* no thread / no connection

ASSUME /\ Workers # {} /\ Acceptor \notin Workers
       /\ Capacity \in Nat \ {0} /\ NConns \in Nat \ {0} /\ TakeWakesAll \in BOOLEAN

Conns  == 1..NConns
Values == Conns \cup {Null}

(* --algorithm OneMonitorPht
variables
    free = Capacity,                  \* slots a put may fill (guarded by the monitor)
    filled = 0,                       \* items a take may find (guarded by the monitor)
    lock = Null,                      \* the thread holding the counts' monitor
    waitSet = {},                     \* threads in wait() that no notify has removed yet
    table = {},                       \* the connections in the table's slots
    accepted = 0,                     \* connections accepted so far: 1..accepted
    taken = [v \in Values |-> 0];     \* how often each value was handed to a worker

\* wait(), by a worker: release the monitor and park in the wait set.
macro Wait() begin
    lock := Null; waitSet := waitSet \cup {self};
end macro;

\* ANCHOR: put
fair process acceptor = Acceptor
variables conn = Null;   \* the connection being handed off
begin
Accept:
    while accepted < NConns do
        accepted := accepted + 1; conn := accepted;
EnterPut:
        await lock = Null; lock := Acceptor;
CheckFree:
        if free = 0 then
            lock := Null; waitSet := waitSet \cup {Acceptor};   \* wait()
WakePut:                                          \* notified: win the monitor back, look again
            await Acceptor \notin waitSet /\ lock = Null; lock := Acceptor;
            goto CheckFree;
        end if;
ClaimFree:
        free := free - 1; lock := Null;
Insert:                                           \* probe for a null slot and set it: one producer
        table := table \cup {conn}; conn := Null;
EnterFilled:
        await lock = Null; lock := Acceptor;
Filled:
        filled := filled + 1; waitSet := {}; lock := Null;   \* notifyAll()
    end while;
end process;
\* ANCHOR_END: put

\* ANCHOR: take
fair process worker \in Workers
variables got = Null;    \* the connection this worker claimed, until its slot is counted free
begin
EnterTake:
    while TRUE do
        await lock = Null; lock := self;
CheckFilled:
        if filled = 0 then
            Wait();
WakeTake:
            await self \notin waitSet /\ lock = Null; lock := self;
            goto CheckFilled;
        end if;
ClaimFilled:
        filled := filled - 1; lock := Null;
Claim:                                            \* probe from a random start, swap slots with null
        with c \in table do
            table := table \ {c}; got := c; taken[c] := taken[c] + 1;
        end with;
EnterFree:
        await lock = Null; lock := self;
Free:
        free := free + 1;
        if TakeWakesAll then
            waitSet := {};                        \* notifyAll()
        elsif waitSet # {} then                   \* notify(): one waiter, any kind
            with w \in waitSet do waitSet := waitSet \ {w}; end with;
        end if;
        lock := Null; got := Null;
    end while;
end process;
\* ANCHOR_END: take
end algorithm; *)
\* BEGIN TRANSLATION
VARIABLES free, filled, lock, waitSet, table, accepted, taken, pc, conn, got

vars == << free, filled, lock, waitSet, table, accepted, taken, pc, conn, got
        >>

ProcSet == {Acceptor} \cup (Workers)

Init == (* Global variables *)
        /\ free = Capacity
        /\ filled = 0
        /\ lock = Null
        /\ waitSet = {}
        /\ table = {}
        /\ accepted = 0
        /\ taken = [v \in Values |-> 0]
        (* Process acceptor *)
        /\ conn = Null
        (* Process worker *)
        /\ got = [self \in Workers |-> Null]
        /\ pc = [self \in ProcSet |-> CASE self = Acceptor -> "Accept"
                                        [] self \in Workers -> "EnterTake"]

Accept == /\ pc[Acceptor] = "Accept"
          /\ IF accepted < NConns
                THEN /\ accepted' = accepted + 1
                     /\ conn' = accepted'
                     /\ pc' = [pc EXCEPT ![Acceptor] = "EnterPut"]
                ELSE /\ pc' = [pc EXCEPT ![Acceptor] = "Done"]
                     /\ UNCHANGED << accepted, conn >>
          /\ UNCHANGED << free, filled, lock, waitSet, table, taken, got >>

EnterPut == /\ pc[Acceptor] = "EnterPut"
            /\ lock = Null
            /\ lock' = Acceptor
            /\ pc' = [pc EXCEPT ![Acceptor] = "CheckFree"]
            /\ UNCHANGED << free, filled, waitSet, table, accepted, taken, 
                            conn, got >>

CheckFree == /\ pc[Acceptor] = "CheckFree"
             /\ IF free = 0
                   THEN /\ lock' = Null
                        /\ waitSet' = (waitSet \cup {Acceptor})
                        /\ pc' = [pc EXCEPT ![Acceptor] = "WakePut"]
                   ELSE /\ pc' = [pc EXCEPT ![Acceptor] = "ClaimFree"]
                        /\ UNCHANGED << lock, waitSet >>
             /\ UNCHANGED << free, filled, table, accepted, taken, conn, got >>

WakePut == /\ pc[Acceptor] = "WakePut"
           /\ Acceptor \notin waitSet /\ lock = Null
           /\ lock' = Acceptor
           /\ pc' = [pc EXCEPT ![Acceptor] = "CheckFree"]
           /\ UNCHANGED << free, filled, waitSet, table, accepted, taken, conn, 
                           got >>

ClaimFree == /\ pc[Acceptor] = "ClaimFree"
             /\ free' = free - 1
             /\ lock' = Null
             /\ pc' = [pc EXCEPT ![Acceptor] = "Insert"]
             /\ UNCHANGED << filled, waitSet, table, accepted, taken, conn, 
                             got >>

Insert == /\ pc[Acceptor] = "Insert"
          /\ table' = (table \cup {conn})
          /\ conn' = Null
          /\ pc' = [pc EXCEPT ![Acceptor] = "EnterFilled"]
          /\ UNCHANGED << free, filled, lock, waitSet, accepted, taken, got >>

EnterFilled == /\ pc[Acceptor] = "EnterFilled"
               /\ lock = Null
               /\ lock' = Acceptor
               /\ pc' = [pc EXCEPT ![Acceptor] = "Filled"]
               /\ UNCHANGED << free, filled, waitSet, table, accepted, taken, 
                               conn, got >>

Filled == /\ pc[Acceptor] = "Filled"
          /\ filled' = filled + 1
          /\ waitSet' = {}
          /\ lock' = Null
          /\ pc' = [pc EXCEPT ![Acceptor] = "Accept"]
          /\ UNCHANGED << free, table, accepted, taken, conn, got >>

acceptor == Accept \/ EnterPut \/ CheckFree \/ WakePut \/ ClaimFree
               \/ Insert \/ EnterFilled \/ Filled

EnterTake(self) == /\ pc[self] = "EnterTake"
                   /\ lock = Null
                   /\ lock' = self
                   /\ pc' = [pc EXCEPT ![self] = "CheckFilled"]
                   /\ UNCHANGED << free, filled, waitSet, table, accepted, 
                                   taken, conn, got >>

CheckFilled(self) == /\ pc[self] = "CheckFilled"
                     /\ IF filled = 0
                           THEN /\ lock' = Null
                                /\ waitSet' = (waitSet \cup {self})
                                /\ pc' = [pc EXCEPT ![self] = "WakeTake"]
                           ELSE /\ pc' = [pc EXCEPT ![self] = "ClaimFilled"]
                                /\ UNCHANGED << lock, waitSet >>
                     /\ UNCHANGED << free, filled, table, accepted, taken, 
                                     conn, got >>

WakeTake(self) == /\ pc[self] = "WakeTake"
                  /\ self \notin waitSet /\ lock = Null
                  /\ lock' = self
                  /\ pc' = [pc EXCEPT ![self] = "CheckFilled"]
                  /\ UNCHANGED << free, filled, waitSet, table, accepted, 
                                  taken, conn, got >>

ClaimFilled(self) == /\ pc[self] = "ClaimFilled"
                     /\ filled' = filled - 1
                     /\ lock' = Null
                     /\ pc' = [pc EXCEPT ![self] = "Claim"]
                     /\ UNCHANGED << free, waitSet, table, accepted, taken, 
                                     conn, got >>

Claim(self) == /\ pc[self] = "Claim"
               /\ \E c \in table:
                    /\ table' = table \ {c}
                    /\ got' = [got EXCEPT ![self] = c]
                    /\ taken' = [taken EXCEPT ![c] = taken[c] + 1]
               /\ pc' = [pc EXCEPT ![self] = "EnterFree"]
               /\ UNCHANGED << free, filled, lock, waitSet, accepted, conn >>

EnterFree(self) == /\ pc[self] = "EnterFree"
                   /\ lock = Null
                   /\ lock' = self
                   /\ pc' = [pc EXCEPT ![self] = "Free"]
                   /\ UNCHANGED << free, filled, waitSet, table, accepted, 
                                   taken, conn, got >>

Free(self) == /\ pc[self] = "Free"
              /\ free' = free + 1
              /\ IF TakeWakesAll
                    THEN /\ waitSet' = {}
                    ELSE /\ IF waitSet # {}
                               THEN /\ \E w \in waitSet:
                                         waitSet' = waitSet \ {w}
                               ELSE /\ TRUE
                                    /\ UNCHANGED waitSet
              /\ lock' = Null
              /\ got' = [got EXCEPT ![self] = Null]
              /\ pc' = [pc EXCEPT ![self] = "EnterTake"]
              /\ UNCHANGED << filled, table, accepted, taken, conn >>

worker(self) == EnterTake(self) \/ CheckFilled(self) \/ WakeTake(self)
                   \/ ClaimFilled(self) \/ Claim(self) \/ EnterFree(self)
                   \/ Free(self)

Next == acceptor
           \/ (\E self \in Workers: worker(self))

Spec == /\ Init /\ [][Next]_vars
        /\ WF_vars(acceptor)
        /\ \A self \in Workers : WF_vars(worker(self))

\* END TRANSLATION

TypeOK == /\ free \in 0..Capacity /\ filled \in 0..Capacity /\ waitSet \subseteq Workers \cup {Acceptor}
          /\ table \subseteq Conns /\ accepted \in 0..NConns /\ conn \in Values /\ got \in [Workers -> Values]

\* ANCHOR: properties
NoDuplicate == \A i \in Conns : taken[i] <= 1
NoInvented == \A v \in Values : taken[v] > 0 => v \in 1..accepted
NoLoss == \A i \in 1..accepted : i = conn \/ i \in table \/ taken[i] > 0
\* The table never holds more than its slots: the free count guards them.
Bounded == Cardinality(table) <= Capacity
EventuallyTaken == \A i \in Conns : (accepted >= i) ~> (taken[i] > 0)
\* ANCHOR_END: properties

-----------------------------------------------------------------------------
\* Every connection was served and the acceptor stopped: the workers wait for
\* ever, which is a server at rest, not a deadlock.
AllServed == pc[Acceptor] = "Done" /\ \A i \in Conns : taken[i] > 0
Finished == AllServed /\ UNCHANGED vars
ServerSpec == Init /\ [][Next \/ Finished]_vars
              /\ WF_vars(acceptor) /\ \A w \in Workers : WF_vars(worker(w))

HandoffSpec == INSTANCE Handoff
Refines == HandoffSpec!Spec
=============================================================================
