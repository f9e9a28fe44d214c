---------------------------- MODULE SharedBuffer ----------------------------
(***************************************************************************)
(* The bounded shared buffer: the "shared buffer" server design of Roussev *)
(* and Wu (ICN 2001, Sec. 3; JSA 2006, Sec. 3).  Acceptor threads           *)
(* (Producers) put the ids of accepted connections into a ring of Capacity  *)
(* slots; worker threads (Consumers) take them.  The ring is guarded by ONE *)
(* Java monitor, and this module models the monitor explicitly, because the *)
(* bugs this kit teaches live there:                                        *)
(*   - one lock, held by at most one thread;                                *)
(*   - a wait set: wait() releases the lock and parks the thread;           *)
(*   - notify() removes ONE ARBITRARY waiter from the wait set (HotSpot     *)
(*     picks one; the JLS promises nothing), notifyAll() removes them all;  *)
(*   - a woken thread must win the lock again before it goes on, and then   *)
(*     re-checks its condition (`while`) or does not (`if`).                *)
(* The Java twin of this module is java/handoffs/.../MonitorBuffer.java;    *)
(* its buggy twins are NotifyBuffer (NotifyAll = FALSE) and IfBuffer        *)
(* (RecheckInLoop = FALSE).  specs/catalog.toml says what TLC must report.  *)
(***************************************************************************)
EXTENDS Integers, FiniteSets

CONSTANTS
    Producers,      \* acceptor threads (model values)
    Consumers,      \* worker threads (model values)
    Capacity,       \* slots in the ring
    NConns,         \* connections accepted in one run: ids 1..NConns
    NotifyAll,      \* TRUE: notifyAll(), FALSE: notify()
    RecheckInLoop,  \* TRUE: while (cond) wait();  FALSE: if (cond) wait();
    Null            \* an empty slot / no thread / no connection

ASSUME /\ Producers # {} /\ Consumers # {} /\ Producers \cap Consumers = {}
       /\ Capacity \in Nat \ {0} /\ NConns \in Nat \ {0}
       /\ NotifyAll \in BOOLEAN /\ RecheckInLoop \in BOOLEAN

Threads == Producers \cup Consumers
Conns   == 1..NConns
Slots   == 0..(Capacity - 1)

VARIABLES
    items,     \* the ring: Slots -> connection id or Null (taken slots are nulled, as in ArrayBlockingQueue)
    putAt,     \* next slot to fill
    takeAt,    \* next slot to empty
    count,     \* filled slots, as the Java field (it can go wrong in the buggy variants)
    lock,      \* the thread that holds the monitor, or Null
    waitSet,   \* threads parked in wait() that no notify has removed yet
    pc,        \* where each thread is, see Step(t)
    hand,      \* the connection a producer is about to put, or a consumer last took
    accepted,  \* connections accepted so far: ids 1..accepted exist
    taken      \* how many times each value was handed to a worker (Null counts too)

vars == <<items, putAt, takeAt, count, lock, waitSet, pc, hand, accepted, taken>>

Values == Conns \cup {Null}

TypeOK ==
    /\ items \in [Slots -> Values]
    /\ putAt \in Slots /\ takeAt \in Slots
    /\ count \in -Cardinality(Consumers)..(Capacity + Cardinality(Producers))
    /\ lock \in Threads \cup {Null}
    /\ waitSet \subseteq Threads
    /\ pc \in [Threads -> {"accept", "enter", "check", "waiting", "act", "done"}]
    /\ hand \in [Threads -> Values]
    /\ accepted \in 0..NConns
    /\ taken \in [Values -> Nat]

Init ==
    /\ items = [s \in Slots |-> Null]
    /\ putAt = 0 /\ takeAt = 0 /\ count = 0
    /\ lock = Null
    /\ waitSet = {}
    /\ pc = [t \in Threads |-> IF t \in Producers THEN "accept" ELSE "enter"]
    /\ hand = [t \in Threads |-> Null]
    /\ accepted = 0
    /\ taken = [v \in Values |-> 0]

-----------------------------------------------------------------------------
(* The monitor.                                                            *)

\* The wait set after this thread's notify() or notifyAll().
Notify ==
    IF waitSet = {} THEN waitSet' = waitSet
    ELSE IF NotifyAll THEN waitSet' = {}
    ELSE \E w \in waitSet : waitSet' = waitSet \ {w}

\* synchronized: enter the monitor when nobody holds it.
Enter(t) ==
    /\ pc[t] = "enter" /\ lock = Null
    /\ lock' = t /\ pc' = [pc EXCEPT ![t] = "check"]
    /\ UNCHANGED <<items, putAt, takeAt, count, waitSet, hand, accepted, taken>>

\* wait(): release the monitor and park in the wait set.
Wait(t) ==
    /\ lock' = Null /\ waitSet' = waitSet \cup {t}
    /\ pc' = [pc EXCEPT ![t] = "waiting"]
    /\ UNCHANGED <<items, putAt, takeAt, count, hand, accepted, taken>>

\* Back from wait(): once notified, win the monitor again.  `while` goes
\* back to the check; `if` goes straight on to act.
Wake(t) ==
    /\ pc[t] = "waiting" /\ t \notin waitSet /\ lock = Null
    /\ lock' = t
    /\ pc' = [pc EXCEPT ![t] = IF RecheckInLoop THEN "check" ELSE "act"]
    /\ UNCHANGED <<items, putAt, takeAt, count, waitSet, hand, accepted, taken>>

-----------------------------------------------------------------------------
(* The acceptor (producer) side.                                           *)

\* accept() hands the next connection to this acceptor (the OS serialises it).
Accept(p) ==
    /\ pc[p] = "accept" /\ accepted < NConns
    /\ accepted' = accepted + 1
    /\ hand' = [hand EXCEPT ![p] = accepted + 1]
    /\ pc' = [pc EXCEPT ![p] = "enter"]
    /\ UNCHANGED <<items, putAt, takeAt, count, lock, waitSet, taken>>

\* No connections left in this run: the acceptor stops.
Stop(p) ==
    /\ pc[p] = "accept" /\ accepted = NConns
    /\ pc' = [pc EXCEPT ![p] = "done"]
    /\ UNCHANGED <<items, putAt, takeAt, count, lock, waitSet, hand, accepted, taken>>

\* ANCHOR: put
\* put(): fill the slot, notify, leave the monitor.  Its linearization point.
Put(p) ==
    /\ items' = [items EXCEPT ![putAt] = hand[p]]
    /\ putAt' = (putAt + 1) % Capacity
    /\ count' = count + 1
    /\ Notify
    /\ lock' = Null
    /\ hand' = [hand EXCEPT ![p] = Null]
    /\ pc' = [pc EXCEPT ![p] = "accept"]
    /\ UNCHANGED <<takeAt, accepted, taken>>

PutCheck(p) ==
    /\ pc[p] = "check"
    /\ IF count = Capacity THEN Wait(p) ELSE Put(p)

\* Only reachable with `if`: put without re-checking that a slot is free.
PutBlind(p) == pc[p] = "act" /\ Put(p)
\* ANCHOR_END: put

-----------------------------------------------------------------------------
(* The worker (consumer) side.                                             *)

\* ANCHOR: take
\* take(): empty the slot, notify, leave the monitor; the worker then serves
\* the connection and comes back for the next one.
Take(c) ==
    /\ hand' = [hand EXCEPT ![c] = items[takeAt]]
    /\ taken' = [taken EXCEPT ![items[takeAt]] = @ + 1]
    /\ items' = [items EXCEPT ![takeAt] = Null]
    /\ takeAt' = (takeAt + 1) % Capacity
    /\ count' = count - 1
    /\ Notify
    /\ lock' = Null
    /\ pc' = [pc EXCEPT ![c] = "enter"]
    /\ UNCHANGED <<putAt, accepted>>

TakeCheck(c) ==
    /\ pc[c] = "check"
    /\ IF count = 0 THEN Wait(c) ELSE Take(c)

\* Only reachable with `if`: take without re-checking that a slot is full.
TakeBlind(c) == pc[c] = "act" /\ Take(c)
\* ANCHOR_END: take

-----------------------------------------------------------------------------
\* One thread's program.  Next lists the same actions one by one so that
\* TLC names each step of a counterexample after its action.
Step(t) ==
    \/ Enter(t) \/ Wake(t)
    \/ t \in Producers /\ (Accept(t) \/ Stop(t) \/ PutCheck(t) \/ PutBlind(t))
    \/ t \in Consumers /\ (TakeCheck(t) \/ TakeBlind(t))

\* Every connection was served and every acceptor stopped: the workers idle
\* in wait() for ever, which is a server at rest, not a deadlock.
AllServed ==
    /\ \A p \in Producers : pc[p] = "done"
    /\ \A i \in Conns : taken[i] > 0

Done == AllServed /\ UNCHANGED vars

Next ==
    \/ Done
    \/ \E t \in Threads : Enter(t) \/ Wake(t)
    \/ \E p \in Producers : Accept(p) \/ Stop(p) \/ PutCheck(p) \/ PutBlind(p)
    \/ \E c \in Consumers : TakeCheck(c) \/ TakeBlind(c)

\* The fairness Java gives a runnable thread: it is not stalled for ever.
Spec == Init /\ [][Next]_vars /\ \A t \in Threads : WF_vars(Step(t))

-----------------------------------------------------------------------------
(* Exactly-once delivery, the property every handoff of the kit must have. *)

\* ANCHOR: properties
Held(i) == \E p \in Producers : hand[p] = i
Buffered(i) == \E s \in Slots : items[s] = i

\* Never duplicated: no connection is handed to two workers (or twice).
NoDuplicate == \A i \in Conns : taken[i] <= 1

\* Never invented: a worker only ever gets a connection that was accepted.
NoInvented == \A v \in Values : taken[v] > 0 => v \in 1..accepted

\* Never lost: an accepted connection is with its acceptor, in the buffer, or taken.
NoLoss == \A i \in 1..accepted : Held(i) \/ Buffered(i) \/ taken[i] > 0

\* Every accepted connection is eventually taken by a worker.
EventuallyTaken == \A i \in Conns : (accepted >= i) ~> (taken[i] > 0)
\* ANCHOR_END: properties
=============================================================================
