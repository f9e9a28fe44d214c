------------------------------- MODULE FastPht -------------------------------
(***************************************************************************)
(* The fast permits of FastPht (java/handoffs: FastPermits), the step from  *)
(* the paper's design to a fast one.  The parallel hash table's two        *)
(* counting semaphores, free slots and filled slots, are each an atomic    *)
(* count with a compare-and-set fast path; the monitor is taken only to    *)
(* wait, or by a release that sees a waiter.  The table itself is the set  *)
(* `table` here: its slots and probes are ParallelHashTable.tla's, changed *)
(* only in what they cost: the Java slots are one array of atomic          *)
(* references, filled by the one acceptor with a store and emptied with    *)
(* one atomic swap (each one step, as the spec's); a probe reads its slot  *)
(* before it swaps (an empty slot a take reads is its swap of null for     *)
(* null, a full slot the one acceptor reads is its get) and steps through  *)
(* the probe sequence instead of recomputing it.  This module models what  *)
(* does change, the permits:                                               *)
(*   - acquire: take a permit with one compare-and-set if there is one;    *)
(*     else lock the monitor, register as a waiter, look again, and wait   *)
(*     only while there is still none;                                     *)
(*   - release: add a permit, then look at the waiters, and only if there  *)
(*     is one lock the monitor and notify() one.                           *)
(* Registering before the second look is what makes this right: a release  *)
(* either sees the waiter or adds its permit before the waiter looks.      *)
(* RegisterFirst = FALSE is LateWaiterPht (LateWaiterPermits): the waiter  *)
(* looks, then registers, and a release in between wakes nobody.           *)
(* specs/catalog.toml says what TLC must report for each model.             *)
(***************************************************************************)
EXTENDS Integers, FiniteSets, Sequences

CONSTANTS
    Acceptor,       \* the one acceptor thread (a model value)
    Workers,        \* worker threads (model values)
    Capacity,       \* slots in the table
    NConns,         \* connections accepted in one run: ids 1..NConns
    RegisterFirst,  \* TRUE: waiters++ before the second look (FastPermits); FALSE: after it (LateWaiterPermits)
    Null            \* no thread / no connection

ASSUME /\ Workers # {} /\ Acceptor \notin Workers
       /\ Capacity \in Nat \ {0} /\ NConns \in Nat \ {0} /\ RegisterFirst \in BOOLEAN

Conns  == 1..NConns
Values == Conns \cup {Null}
Sems   == {"free", "filled"}   \* the table's two permit counts

(* --algorithm FastPht
variables
    available = [s \in Sems |-> IF s = "free" THEN Capacity ELSE 0],  \* the AtomicInteger
    waiters = [s \in Sems |-> 0],     \* the volatile count of registered waiters
    lock = [s \in Sems |-> Null],     \* the thread holding the permits' monitor
    waitSet = [s \in Sems |-> {}],    \* threads in wait() that no notify has removed yet
    table = {},                       \* the connections in the table's slots
    accepted = 0,                     \* connections accepted so far: 1..accepted
    taken = [v \in Values |-> 0];     \* how often each value was handed to a worker

\* ANCHOR: acquire
procedure Acquire(sem)
begin
  Fast:
    if available[sem] > 0 then
        available[sem] := available[sem] - 1;   \* compareAndSet(a, a - 1): no lock
        return;
    end if;
  Lock:
    await lock[sem] = Null;
    lock[sem] := self;
  Register:
    if RegisterFirst then waiters[sem] := waiters[sem] + 1; end if;
  Look:
    if available[sem] > 0 then
        available[sem] := available[sem] - 1;
        goto Leave;
    elsif RegisterFirst then
        goto Wait;
    end if;
  LateRegister:                               \* the slip: registered after the look
    waiters[sem] := waiters[sem] + 1;
  Wait:                                       \* wait(): release the monitor, park
    lock[sem] := Null;
    waitSet[sem] := waitSet[sem] \cup {self};
  Woken:                                      \* notified, and the monitor won again
    await self \notin waitSet[sem] /\ lock[sem] = Null;
    lock[sem] := self;
    if ~RegisterFirst then waiters[sem] := waiters[sem] - 1; end if;
    goto Look;
  Leave:
    if RegisterFirst then waiters[sem] := waiters[sem] - 1; end if;
    lock[sem] := Null;
    return;
end procedure;
\* ANCHOR_END: acquire

\* ANCHOR: release
procedure Release(rsem)
begin
  Incr:
    available[rsem] := available[rsem] + 1;     \* incrementAndGet: no lock
  LookWaiters:
    if waiters[rsem] = 0 then return; end if;
  Notify:                                     \* lock, notify() one waiter, unlock
    await lock[rsem] = Null;
    if waitSet[rsem] # {} then
        with w \in waitSet[rsem] do waitSet[rsem] := waitSet[rsem] \ {w}; end with;
    end if;
    return;
end procedure;
\* ANCHOR_END: release

fair process acceptor = Acceptor
begin
  Accept:
    while accepted < NConns do
        call Acquire("free");
  Put:
        accepted := accepted + 1;
        table := table \cup {accepted};
        call Release("filled");
    end while;
end process;

fair process worker \in Workers
begin
  Take:
    while TRUE do
        call Acquire("filled");
  Claim:                                      \* a permit means a connection is in the table
        with c \in table do
            table := table \ {c};
            taken[c] := taken[c] + 1;
        end with;
        call Release("free");
    end while;
end process;
end algorithm; *)
\* BEGIN TRANSLATION
CONSTANT defaultInitValue
VARIABLES available, waiters, lock, waitSet, table, accepted, taken, pc, 
          stack, sem, rsem

vars == << available, waiters, lock, waitSet, table, accepted, taken, pc, 
           stack, sem, rsem >>

ProcSet == {Acceptor} \cup (Workers)

Init == (* Global variables *)
        /\ available = [s \in Sems |-> IF s = "free" THEN Capacity ELSE 0]
        /\ waiters = [s \in Sems |-> 0]
        /\ lock = [s \in Sems |-> Null]
        /\ waitSet = [s \in Sems |-> {}]
        /\ table = {}
        /\ accepted = 0
        /\ taken = [v \in Values |-> 0]
        (* Procedure Acquire *)
        /\ sem = [ self \in ProcSet |-> defaultInitValue]
        (* Procedure Release *)
        /\ rsem = [ self \in ProcSet |-> defaultInitValue]
        /\ stack = [self \in ProcSet |-> << >>]
        /\ pc = [self \in ProcSet |-> CASE self = Acceptor -> "Accept"
                                        [] self \in Workers -> "Take"]

Fast(self) == /\ pc[self] = "Fast"
              /\ IF available[sem[self]] > 0
                    THEN /\ available' = [available EXCEPT ![sem[self]] = available[sem[self]] - 1]
                         /\ pc' = [pc EXCEPT ![self] = Head(stack[self]).pc]
                         /\ sem' = [sem EXCEPT ![self] = Head(stack[self]).sem]
                         /\ stack' = [stack EXCEPT ![self] = Tail(stack[self])]
                    ELSE /\ pc' = [pc EXCEPT ![self] = "Lock"]
                         /\ UNCHANGED << available, stack, sem >>
              /\ UNCHANGED << waiters, lock, waitSet, table, accepted, taken, 
                              rsem >>

Lock(self) == /\ pc[self] = "Lock"
              /\ lock[sem[self]] = Null
              /\ lock' = [lock EXCEPT ![sem[self]] = self]
              /\ pc' = [pc EXCEPT ![self] = "Register"]
              /\ UNCHANGED << available, waiters, waitSet, table, accepted, 
                              taken, stack, sem, rsem >>

Register(self) == /\ pc[self] = "Register"
                  /\ IF RegisterFirst
                        THEN /\ waiters' = [waiters EXCEPT ![sem[self]] = waiters[sem[self]] + 1]
                        ELSE /\ TRUE
                             /\ UNCHANGED waiters
                  /\ pc' = [pc EXCEPT ![self] = "Look"]
                  /\ UNCHANGED << available, lock, waitSet, table, accepted, 
                                  taken, stack, sem, rsem >>

Look(self) == /\ pc[self] = "Look"
              /\ IF available[sem[self]] > 0
                    THEN /\ available' = [available EXCEPT ![sem[self]] = available[sem[self]] - 1]
                         /\ pc' = [pc EXCEPT ![self] = "Leave"]
                    ELSE /\ IF RegisterFirst
                               THEN /\ pc' = [pc EXCEPT ![self] = "Wait"]
                               ELSE /\ pc' = [pc EXCEPT ![self] = "LateRegister"]
                         /\ UNCHANGED available
              /\ UNCHANGED << waiters, lock, waitSet, table, accepted, taken, 
                              stack, sem, rsem >>

LateRegister(self) == /\ pc[self] = "LateRegister"
                      /\ waiters' = [waiters EXCEPT ![sem[self]] = waiters[sem[self]] + 1]
                      /\ pc' = [pc EXCEPT ![self] = "Wait"]
                      /\ UNCHANGED << available, lock, waitSet, table, 
                                      accepted, taken, stack, sem, rsem >>

Wait(self) == /\ pc[self] = "Wait"
              /\ lock' = [lock EXCEPT ![sem[self]] = Null]
              /\ waitSet' = [waitSet EXCEPT ![sem[self]] = waitSet[sem[self]] \cup {self}]
              /\ pc' = [pc EXCEPT ![self] = "Woken"]
              /\ UNCHANGED << available, waiters, table, accepted, taken, 
                              stack, sem, rsem >>

Woken(self) == /\ pc[self] = "Woken"
               /\ self \notin waitSet[sem[self]] /\ lock[sem[self]] = Null
               /\ lock' = [lock EXCEPT ![sem[self]] = self]
               /\ IF ~RegisterFirst
                     THEN /\ waiters' = [waiters EXCEPT ![sem[self]] = waiters[sem[self]] - 1]
                     ELSE /\ TRUE
                          /\ UNCHANGED waiters
               /\ pc' = [pc EXCEPT ![self] = "Look"]
               /\ UNCHANGED << available, waitSet, table, accepted, taken, 
                               stack, sem, rsem >>

Leave(self) == /\ pc[self] = "Leave"
               /\ IF RegisterFirst
                     THEN /\ waiters' = [waiters EXCEPT ![sem[self]] = waiters[sem[self]] - 1]
                     ELSE /\ TRUE
                          /\ UNCHANGED waiters
               /\ lock' = [lock EXCEPT ![sem[self]] = Null]
               /\ pc' = [pc EXCEPT ![self] = Head(stack[self]).pc]
               /\ sem' = [sem EXCEPT ![self] = Head(stack[self]).sem]
               /\ stack' = [stack EXCEPT ![self] = Tail(stack[self])]
               /\ UNCHANGED << available, waitSet, table, accepted, taken, 
                               rsem >>

Acquire(self) == Fast(self) \/ Lock(self) \/ Register(self) \/ Look(self)
                    \/ LateRegister(self) \/ Wait(self) \/ Woken(self)
                    \/ Leave(self)

Incr(self) == /\ pc[self] = "Incr"
              /\ available' = [available EXCEPT ![rsem[self]] = available[rsem[self]] + 1]
              /\ pc' = [pc EXCEPT ![self] = "LookWaiters"]
              /\ UNCHANGED << waiters, lock, waitSet, table, accepted, taken, 
                              stack, sem, rsem >>

LookWaiters(self) == /\ pc[self] = "LookWaiters"
                     /\ IF waiters[rsem[self]] = 0
                           THEN /\ pc' = [pc EXCEPT ![self] = Head(stack[self]).pc]
                                /\ rsem' = [rsem EXCEPT ![self] = Head(stack[self]).rsem]
                                /\ stack' = [stack EXCEPT ![self] = Tail(stack[self])]
                           ELSE /\ pc' = [pc EXCEPT ![self] = "Notify"]
                                /\ UNCHANGED << stack, rsem >>
                     /\ UNCHANGED << available, waiters, lock, waitSet, table, 
                                     accepted, taken, sem >>

Notify(self) == /\ pc[self] = "Notify"
                /\ lock[rsem[self]] = Null
                /\ IF waitSet[rsem[self]] # {}
                      THEN /\ \E w \in waitSet[rsem[self]]:
                                waitSet' = [waitSet EXCEPT ![rsem[self]] = waitSet[rsem[self]] \ {w}]
                      ELSE /\ TRUE
                           /\ UNCHANGED waitSet
                /\ pc' = [pc EXCEPT ![self] = Head(stack[self]).pc]
                /\ rsem' = [rsem EXCEPT ![self] = Head(stack[self]).rsem]
                /\ stack' = [stack EXCEPT ![self] = Tail(stack[self])]
                /\ UNCHANGED << available, waiters, lock, table, accepted, 
                                taken, sem >>

Release(self) == Incr(self) \/ LookWaiters(self) \/ Notify(self)

Accept == /\ pc[Acceptor] = "Accept"
          /\ IF accepted < NConns
                THEN /\ /\ sem' = [sem EXCEPT ![Acceptor] = "free"]
                        /\ stack' = [stack EXCEPT ![Acceptor] = << [ procedure |->  "Acquire",
                                                                     pc        |->  "Put",
                                                                     sem       |->  sem[Acceptor] ] >>
                                                                 \o stack[Acceptor]]
                     /\ pc' = [pc EXCEPT ![Acceptor] = "Fast"]
                ELSE /\ pc' = [pc EXCEPT ![Acceptor] = "Done"]
                     /\ UNCHANGED << stack, sem >>
          /\ UNCHANGED << available, waiters, lock, waitSet, table, accepted, 
                          taken, rsem >>

Put == /\ pc[Acceptor] = "Put"
       /\ accepted' = accepted + 1
       /\ table' = (table \cup {accepted'})
       /\ /\ rsem' = [rsem EXCEPT ![Acceptor] = "filled"]
          /\ stack' = [stack EXCEPT ![Acceptor] = << [ procedure |->  "Release",
                                                       pc        |->  "Accept",
                                                       rsem      |->  rsem[Acceptor] ] >>
                                                   \o stack[Acceptor]]
       /\ pc' = [pc EXCEPT ![Acceptor] = "Incr"]
       /\ UNCHANGED << available, waiters, lock, waitSet, taken, sem >>

acceptor == Accept \/ Put

Take(self) == /\ pc[self] = "Take"
              /\ /\ sem' = [sem EXCEPT ![self] = "filled"]
                 /\ stack' = [stack EXCEPT ![self] = << [ procedure |->  "Acquire",
                                                          pc        |->  "Claim",
                                                          sem       |->  sem[self] ] >>
                                                      \o stack[self]]
              /\ pc' = [pc EXCEPT ![self] = "Fast"]
              /\ UNCHANGED << available, waiters, lock, waitSet, table, 
                              accepted, taken, rsem >>

Claim(self) == /\ pc[self] = "Claim"
               /\ \E c \in table:
                    /\ table' = table \ {c}
                    /\ taken' = [taken EXCEPT ![c] = taken[c] + 1]
               /\ /\ rsem' = [rsem EXCEPT ![self] = "free"]
                  /\ stack' = [stack EXCEPT ![self] = << [ procedure |->  "Release",
                                                           pc        |->  "Take",
                                                           rsem      |->  rsem[self] ] >>
                                                       \o stack[self]]
               /\ pc' = [pc EXCEPT ![self] = "Incr"]
               /\ UNCHANGED << available, waiters, lock, waitSet, accepted, 
                               sem >>

worker(self) == Take(self) \/ Claim(self)

Next == acceptor
           \/ (\E self \in ProcSet: Acquire(self) \/ Release(self))
           \/ (\E self \in Workers: worker(self))

Spec == /\ Init /\ [][Next]_vars
        /\ /\ WF_vars(acceptor)
           /\ WF_vars(Acquire(Acceptor))
           /\ WF_vars(Release(Acceptor))
        /\ \A self \in Workers : WF_vars(worker(self)) /\ WF_vars(Acquire(self)) /\ WF_vars(Release(self))

\* END TRANSLATION

TypeOK == /\ \A s \in Sems : available[s] \in Nat /\ waiters[s] \in Nat /\ waitSet[s] \subseteq Workers \cup {Acceptor}
          /\ table \subseteq Conns /\ accepted \in 0..NConns

\* ANCHOR: properties
NoDuplicate == \A i \in Conns : taken[i] <= 1
NoInvented == \A v \in Values : taken[v] > 0 => v \in 1..accepted
NoLoss == \A i \in 1..accepted : i \in table \/ taken[i] > 0
\* The table never holds more than its slots: the free permits count them.
Bounded == Cardinality(table) <= Capacity
EventuallyTaken == \A i \in Conns : (accepted >= i) ~> (taken[i] > 0)
\* ANCHOR_END: properties

-----------------------------------------------------------------------------
\* Every connection was served and the acceptor stopped: the workers wait for
\* ever, which is a server at rest, not a deadlock.
AllServed == pc[Acceptor] = "Done" /\ \A i \in Conns : taken[i] > 0
Finished == AllServed /\ UNCHANGED vars

\* Each thread's steps, its procedures' included, are weakly fair: a thread that can
\* run is not stalled for ever, which is what a Java scheduler gives.
Fair(t) == WF_vars(Acquire(t)) /\ WF_vars(Release(t))
ServerSpec == Init /\ [][Next \/ Finished]_vars
              /\ WF_vars(acceptor) /\ Fair(Acceptor) /\ \A w \in Workers : WF_vars(worker(w)) /\ Fair(w)

HandoffSpec == INSTANCE Handoff
Refines == HandoffSpec!Spec
=============================================================================
