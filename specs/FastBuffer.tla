------------------------------ MODULE FastBuffer ------------------------------
(***************************************************************************)
(* FastBuffer (java/handoffs), the shared buffer without a lock on every   *)
(* call.  A ring of places, never emptied: index i's connection stays in   *)
(* place i % Capacity until the acceptor stores index i + Capacity's       *)
(* there.  The one acceptor stores at its own index putIndex once that     *)
(* index has room (putIndex < takeAt + Capacity: the worker of index       *)
(* putIndex - Capacity has claimed it) and then advances putIndex; a       *)
(* worker reads takeAt, and while it is below putIndex reads the place     *)
(* and only then claims that index with a compare-and-set of takeAt: a     *)
(* read after the claim could find the next lap's connection, since the    *)
(* claim is what gives the acceptor the room.  The monitor is only for     *)
(* sleeping and waking.  Whoever sleeps registers first (workersWaiting,   *)
(* acceptorWaiting) and then looks again under the monitor; whoever makes  *)
(* progress publishes it (putIndex; the claim's takeAt) and then looks at  *)
(* the registrations, and only if someone is registered takes the monitor  *)
(* and wakes everyone (notifyAll).  The Java class looks a few times,      *)
(* yielding, before it sleeps, and the acceptor remembers the room it last *)
(* saw: those looks are stutters here, since a thread may also go to its   *)
(* slow path at its first look, and a room remembered is a smaller takeAt, *)
(* which only sends the acceptor to look again.  Its workers also share a *)
(* copy of putIndex and read putIndex itself only when they catch up with  *)
(* the copy: a copy is an older putIndex, which only sends a worker to     *)
(* read it again.                                                          *)
(* RegisterFirst = FALSE is LateWaiterBuffer: a worker looks, then         *)
(* registers, and a put in between wakes nobody.  ReadFirst = FALSE is     *)
(* ClaimThenReadBuffer: a worker claims, then reads, and the acceptor may  *)
(* have stored the next lap's connection in the place meanwhile.           *)
(* specs/catalog.toml says what TLC must report for each model.             *)
(***************************************************************************)
EXTENDS Integers, FiniteSets, Sequences

CONSTANTS
    Acceptor,       \* the one acceptor thread (a model value)
    Workers,        \* worker threads (model values)
    Capacity,       \* places in the ring
    NConns,         \* connections accepted in one run: ids 1..NConns
    RegisterFirst,  \* TRUE: workersWaiting++ before the second look (FastBuffer); FALSE: after it (LateWaiterBuffer)
    ReadFirst,      \* TRUE: read the place, then claim (FastBuffer); FALSE: claim, then read (ClaimThenReadBuffer)
    Null            \* no thread / no connection

ASSUME /\ Workers # {} /\ Acceptor \notin Workers
       /\ Capacity \in Nat \ {0} /\ NConns \in Nat \ {0}
       /\ RegisterFirst \in BOOLEAN /\ ReadFirst \in BOOLEAN

Conns  == 1..NConns
Values == Conns \cup {Null}
Places == 0..(Capacity - 1)

(* --algorithm FastBuffer
variables
    ring = [p \in Places |-> Null],   \* the ring's places (Null: never stored yet)
    putIndex = 0,                     \* the acceptor's index (volatile; it alone writes it)
    takeAt = 0,                       \* the workers' index (compare-and-set)
    workersWaiting = 0,               \* registered sleeping workers (volatile)
    acceptorWaiting = FALSE,          \* the acceptor is registered (volatile)
    lock = Null,                      \* the thread holding the monitor
    waitSet = {},                     \* threads in wait() that no notifyAll has removed yet
    accepted = 0,                     \* connections accepted so far: 1..accepted
    taken = [v \in Values |-> 0];     \* how often each value was handed to a worker

\* ANCHOR: acceptor
fair process acceptor = Acceptor
begin
  Accept:
    while accepted < NConns do
  PLook:                                      \* no room while index putIndex - Capacity is unclaimed
        if putIndex >= takeAt + Capacity then
  ALock:    await lock = Null;
            lock := Acceptor;
  ARegister:
            acceptorWaiting := TRUE;
  ALook:    if putIndex >= takeAt + Capacity then
  AWait:        lock := Null;                 \* wait(): release the monitor, park
                waitSet := waitSet \cup {Acceptor};
  AWoken:       await Acceptor \notin waitSet /\ lock = Null;
                lock := Acceptor;
                goto ALook;
            end if;
  ALeave:   acceptorWaiting := FALSE;
            lock := Null;
        end if;
  Store:
        accepted := accepted + 1;
        ring[putIndex % Capacity] := accepted;
  Publish:
        putIndex := putIndex + 1;
  PWake:                                      \* wake only if someone is registered
        if workersWaiting > 0 then
  PNotify:  await lock = Null;
            waitSet := {};                    \* notifyAll
        end if;
    end while;
end process;
\* ANCHOR_END: acceptor

\* ANCHOR: worker
fair process worker \in Workers
variables t = 0, item = Null;
begin
  WLook:
    t := takeAt;
  WCheck:
    if t >= putIndex then                     \* empty: the slow path
  WLock:  await lock = Null;
          lock := self;
  WRegister:
          if RegisterFirst then workersWaiting := workersWaiting + 1; end if;
  WLook2: if takeAt = t /\ putIndex <= t then
  WLateRegister:                              \* the slip: registered after the look
              if ~RegisterFirst then workersWaiting := workersWaiting + 1; end if;
  WWait:      lock := Null;
              waitSet := waitSet \cup {self};
  WWoken:     await self \notin waitSet /\ lock = Null;
              lock := self;
              if ~RegisterFirst then workersWaiting := workersWaiting - 1; end if;
              goto WLook2;
          end if;
  WLeave: if RegisterFirst then workersWaiting := workersWaiting - 1; end if;
          lock := Null;
          goto WLook;
    end if;
  WRead:                                      \* the place of index t, before the claim (FastBuffer)
    if ReadFirst then item := ring[t % Capacity]; end if;
  WClaim:                                     \* takeAt.compareAndSet(t, t + 1): index t, and what was read, is
    if takeAt = t then                        \* this worker's, handed to it at once
        takeAt := t + 1;
        if ReadFirst then taken[item] := taken[item] + 1; end if;
    else
        goto WLook;
    end if;
  WReadLate:                                  \* the slip: the place read after the claim gave the acceptor room
    if ~ReadFirst then
        item := ring[t % Capacity];
        taken[ring[t % Capacity]] := taken[ring[t % Capacity]] + 1;
    end if;
  WWake:
    if acceptorWaiting then
  WNotify: await lock = Null;
           waitSet := {};
    end if;
  WNext:
    goto WLook;
end process;
\* ANCHOR_END: worker
end algorithm; *)
\* BEGIN TRANSLATION
VARIABLES ring, putIndex, takeAt, workersWaiting, acceptorWaiting, lock, 
          waitSet, accepted, taken, pc, t, item

vars == << ring, putIndex, takeAt, workersWaiting, acceptorWaiting, lock, 
           waitSet, accepted, taken, pc, t, item >>

ProcSet == {Acceptor} \cup (Workers)

Init == (* Global variables *)
        /\ ring = [p \in Places |-> Null]
        /\ putIndex = 0
        /\ takeAt = 0
        /\ workersWaiting = 0
        /\ acceptorWaiting = FALSE
        /\ lock = Null
        /\ waitSet = {}
        /\ accepted = 0
        /\ taken = [v \in Values |-> 0]
        (* Process worker *)
        /\ t = [self \in Workers |-> 0]
        /\ item = [self \in Workers |-> Null]
        /\ pc = [self \in ProcSet |-> CASE self = Acceptor -> "Accept"
                                        [] self \in Workers -> "WLook"]

Accept == /\ pc[Acceptor] = "Accept"
          /\ IF accepted < NConns
                THEN /\ pc' = [pc EXCEPT ![Acceptor] = "PLook"]
                ELSE /\ pc' = [pc EXCEPT ![Acceptor] = "Done"]
          /\ UNCHANGED << ring, putIndex, takeAt, workersWaiting, 
                          acceptorWaiting, lock, waitSet, accepted, taken, t, 
                          item >>

PLook == /\ pc[Acceptor] = "PLook"
         /\ IF putIndex >= takeAt + Capacity
               THEN /\ pc' = [pc EXCEPT ![Acceptor] = "ALock"]
               ELSE /\ pc' = [pc EXCEPT ![Acceptor] = "Store"]
         /\ UNCHANGED << ring, putIndex, takeAt, workersWaiting, 
                         acceptorWaiting, lock, waitSet, accepted, taken, t, 
                         item >>

ALock == /\ pc[Acceptor] = "ALock"
         /\ lock = Null
         /\ lock' = Acceptor
         /\ pc' = [pc EXCEPT ![Acceptor] = "ARegister"]
         /\ UNCHANGED << ring, putIndex, takeAt, workersWaiting, 
                         acceptorWaiting, waitSet, accepted, taken, t, item >>

ARegister == /\ pc[Acceptor] = "ARegister"
             /\ acceptorWaiting' = TRUE
             /\ pc' = [pc EXCEPT ![Acceptor] = "ALook"]
             /\ UNCHANGED << ring, putIndex, takeAt, workersWaiting, lock, 
                             waitSet, accepted, taken, t, item >>

ALook == /\ pc[Acceptor] = "ALook"
         /\ IF putIndex >= takeAt + Capacity
               THEN /\ pc' = [pc EXCEPT ![Acceptor] = "AWait"]
               ELSE /\ pc' = [pc EXCEPT ![Acceptor] = "ALeave"]
         /\ UNCHANGED << ring, putIndex, takeAt, workersWaiting, 
                         acceptorWaiting, lock, waitSet, accepted, taken, t, 
                         item >>

AWait == /\ pc[Acceptor] = "AWait"
         /\ lock' = Null
         /\ waitSet' = (waitSet \cup {Acceptor})
         /\ pc' = [pc EXCEPT ![Acceptor] = "AWoken"]
         /\ UNCHANGED << ring, putIndex, takeAt, workersWaiting, 
                         acceptorWaiting, accepted, taken, t, item >>

AWoken == /\ pc[Acceptor] = "AWoken"
          /\ Acceptor \notin waitSet /\ lock = Null
          /\ lock' = Acceptor
          /\ pc' = [pc EXCEPT ![Acceptor] = "ALook"]
          /\ UNCHANGED << ring, putIndex, takeAt, workersWaiting, 
                          acceptorWaiting, waitSet, accepted, taken, t, item >>

ALeave == /\ pc[Acceptor] = "ALeave"
          /\ acceptorWaiting' = FALSE
          /\ lock' = Null
          /\ pc' = [pc EXCEPT ![Acceptor] = "Store"]
          /\ UNCHANGED << ring, putIndex, takeAt, workersWaiting, waitSet, 
                          accepted, taken, t, item >>

Store == /\ pc[Acceptor] = "Store"
         /\ accepted' = accepted + 1
         /\ ring' = [ring EXCEPT ![putIndex % Capacity] = accepted']
         /\ pc' = [pc EXCEPT ![Acceptor] = "Publish"]
         /\ UNCHANGED << putIndex, takeAt, workersWaiting, acceptorWaiting, 
                         lock, waitSet, taken, t, item >>

Publish == /\ pc[Acceptor] = "Publish"
           /\ putIndex' = putIndex + 1
           /\ pc' = [pc EXCEPT ![Acceptor] = "PWake"]
           /\ UNCHANGED << ring, takeAt, workersWaiting, acceptorWaiting, lock, 
                           waitSet, accepted, taken, t, item >>

PWake == /\ pc[Acceptor] = "PWake"
         /\ IF workersWaiting > 0
               THEN /\ pc' = [pc EXCEPT ![Acceptor] = "PNotify"]
               ELSE /\ pc' = [pc EXCEPT ![Acceptor] = "Accept"]
         /\ UNCHANGED << ring, putIndex, takeAt, workersWaiting, 
                         acceptorWaiting, lock, waitSet, accepted, taken, t, 
                         item >>

PNotify == /\ pc[Acceptor] = "PNotify"
           /\ lock = Null
           /\ waitSet' = {}
           /\ pc' = [pc EXCEPT ![Acceptor] = "Accept"]
           /\ UNCHANGED << ring, putIndex, takeAt, workersWaiting, 
                           acceptorWaiting, lock, accepted, taken, t, item >>

acceptor == Accept \/ PLook \/ ALock \/ ARegister \/ ALook \/ AWait
               \/ AWoken \/ ALeave \/ Store \/ Publish \/ PWake \/ PNotify

WLook(self) == /\ pc[self] = "WLook"
               /\ t' = [t EXCEPT ![self] = takeAt]
               /\ pc' = [pc EXCEPT ![self] = "WCheck"]
               /\ UNCHANGED << ring, putIndex, takeAt, workersWaiting, 
                               acceptorWaiting, lock, waitSet, accepted, taken, 
                               item >>

WCheck(self) == /\ pc[self] = "WCheck"
                /\ IF t[self] >= putIndex
                      THEN /\ pc' = [pc EXCEPT ![self] = "WLock"]
                      ELSE /\ pc' = [pc EXCEPT ![self] = "WRead"]
                /\ UNCHANGED << ring, putIndex, takeAt, workersWaiting, 
                                acceptorWaiting, lock, waitSet, accepted, 
                                taken, t, item >>

WLock(self) == /\ pc[self] = "WLock"
               /\ lock = Null
               /\ lock' = self
               /\ pc' = [pc EXCEPT ![self] = "WRegister"]
               /\ UNCHANGED << ring, putIndex, takeAt, workersWaiting, 
                               acceptorWaiting, waitSet, accepted, taken, t, 
                               item >>

WRegister(self) == /\ pc[self] = "WRegister"
                   /\ IF RegisterFirst
                         THEN /\ workersWaiting' = workersWaiting + 1
                         ELSE /\ TRUE
                              /\ UNCHANGED workersWaiting
                   /\ pc' = [pc EXCEPT ![self] = "WLook2"]
                   /\ UNCHANGED << ring, putIndex, takeAt, acceptorWaiting, 
                                   lock, waitSet, accepted, taken, t, item >>

WLook2(self) == /\ pc[self] = "WLook2"
                /\ IF takeAt = t[self] /\ putIndex <= t[self]
                      THEN /\ pc' = [pc EXCEPT ![self] = "WLateRegister"]
                      ELSE /\ pc' = [pc EXCEPT ![self] = "WLeave"]
                /\ UNCHANGED << ring, putIndex, takeAt, workersWaiting, 
                                acceptorWaiting, lock, waitSet, accepted, 
                                taken, t, item >>

WLateRegister(self) == /\ pc[self] = "WLateRegister"
                       /\ IF ~RegisterFirst
                             THEN /\ workersWaiting' = workersWaiting + 1
                             ELSE /\ TRUE
                                  /\ UNCHANGED workersWaiting
                       /\ pc' = [pc EXCEPT ![self] = "WWait"]
                       /\ UNCHANGED << ring, putIndex, takeAt, acceptorWaiting, 
                                       lock, waitSet, accepted, taken, t, item >>

WWait(self) == /\ pc[self] = "WWait"
               /\ lock' = Null
               /\ waitSet' = (waitSet \cup {self})
               /\ pc' = [pc EXCEPT ![self] = "WWoken"]
               /\ UNCHANGED << ring, putIndex, takeAt, workersWaiting, 
                               acceptorWaiting, accepted, taken, t, item >>

WWoken(self) == /\ pc[self] = "WWoken"
                /\ self \notin waitSet /\ lock = Null
                /\ lock' = self
                /\ IF ~RegisterFirst
                      THEN /\ workersWaiting' = workersWaiting - 1
                      ELSE /\ TRUE
                           /\ UNCHANGED workersWaiting
                /\ pc' = [pc EXCEPT ![self] = "WLook2"]
                /\ UNCHANGED << ring, putIndex, takeAt, acceptorWaiting, 
                                waitSet, accepted, taken, t, item >>

WLeave(self) == /\ pc[self] = "WLeave"
                /\ IF RegisterFirst
                      THEN /\ workersWaiting' = workersWaiting - 1
                      ELSE /\ TRUE
                           /\ UNCHANGED workersWaiting
                /\ lock' = Null
                /\ pc' = [pc EXCEPT ![self] = "WLook"]
                /\ UNCHANGED << ring, putIndex, takeAt, acceptorWaiting, 
                                waitSet, accepted, taken, t, item >>

WRead(self) == /\ pc[self] = "WRead"
               /\ IF ReadFirst
                     THEN /\ item' = [item EXCEPT ![self] = ring[t[self] % Capacity]]
                     ELSE /\ TRUE
                          /\ item' = item
               /\ pc' = [pc EXCEPT ![self] = "WClaim"]
               /\ UNCHANGED << ring, putIndex, takeAt, workersWaiting, 
                               acceptorWaiting, lock, waitSet, accepted, taken, 
                               t >>

WClaim(self) == /\ pc[self] = "WClaim"
                /\ IF takeAt = t[self]
                      THEN /\ takeAt' = t[self] + 1
                           /\ IF ReadFirst
                                 THEN /\ taken' = [taken EXCEPT ![item[self]] = taken[item[self]] + 1]
                                 ELSE /\ TRUE
                                      /\ taken' = taken
                           /\ pc' = [pc EXCEPT ![self] = "WReadLate"]
                      ELSE /\ pc' = [pc EXCEPT ![self] = "WLook"]
                           /\ UNCHANGED << takeAt, taken >>
                /\ UNCHANGED << ring, putIndex, workersWaiting, 
                                acceptorWaiting, lock, waitSet, accepted, t, 
                                item >>

WReadLate(self) == /\ pc[self] = "WReadLate"
                   /\ IF ~ReadFirst
                         THEN /\ item' = [item EXCEPT ![self] = ring[t[self] % Capacity]]
                              /\ taken' = [taken EXCEPT ![ring[t[self] % Capacity]] = taken[ring[t[self] % Capacity]] + 1]
                         ELSE /\ TRUE
                              /\ UNCHANGED << taken, item >>
                   /\ pc' = [pc EXCEPT ![self] = "WWake"]
                   /\ UNCHANGED << ring, putIndex, takeAt, workersWaiting, 
                                   acceptorWaiting, lock, waitSet, accepted, t >>

WWake(self) == /\ pc[self] = "WWake"
               /\ IF acceptorWaiting
                     THEN /\ pc' = [pc EXCEPT ![self] = "WNotify"]
                     ELSE /\ pc' = [pc EXCEPT ![self] = "WNext"]
               /\ UNCHANGED << ring, putIndex, takeAt, workersWaiting, 
                               acceptorWaiting, lock, waitSet, accepted, taken, 
                               t, item >>

WNotify(self) == /\ pc[self] = "WNotify"
                 /\ lock = Null
                 /\ waitSet' = {}
                 /\ pc' = [pc EXCEPT ![self] = "WNext"]
                 /\ UNCHANGED << ring, putIndex, takeAt, workersWaiting, 
                                 acceptorWaiting, lock, accepted, taken, t, 
                                 item >>

WNext(self) == /\ pc[self] = "WNext"
               /\ pc' = [pc EXCEPT ![self] = "WLook"]
               /\ UNCHANGED << ring, putIndex, takeAt, workersWaiting, 
                               acceptorWaiting, lock, waitSet, accepted, taken, 
                               t, item >>

worker(self) == WLook(self) \/ WCheck(self) \/ WLock(self)
                   \/ WRegister(self) \/ WLook2(self)
                   \/ WLateRegister(self) \/ WWait(self) \/ WWoken(self)
                   \/ WLeave(self) \/ WRead(self) \/ WClaim(self)
                   \/ WReadLate(self) \/ WWake(self) \/ WNotify(self)
                   \/ WNext(self)

(* Allow infinite stuttering to prevent deadlock on termination. *)
Terminating == /\ \A self \in ProcSet: pc[self] = "Done"
               /\ UNCHANGED vars

Next == acceptor
           \/ (\E self \in Workers: worker(self))
           \/ Terminating

Spec == /\ Init /\ [][Next]_vars
        /\ WF_vars(acceptor)
        /\ \A self \in Workers : WF_vars(worker(self))

Termination == <>(\A self \in ProcSet: pc[self] = "Done")

\* END TRANSLATION

TypeOK == /\ ring \in [Places -> Values] /\ putIndex \in 0..NConns /\ takeAt \in 0..NConns
          /\ workersWaiting \in Nat /\ acceptorWaiting \in BOOLEAN
          /\ waitSet \subseteq Workers \cup {Acceptor} /\ accepted \in 0..NConns
          /\ item \in [Workers -> Values]

\* ANCHOR: properties
NoDuplicate == \A i \in Conns : taken[i] <= 1
NoInvented == \A v \in Values : taken[v] > 0 => v \in 1..accepted
\* Connection i is stored at index i - 1 and stays in its place until it is taken.
NoLoss == \A i \in 1..accepted : ring[(i - 1) % Capacity] = i \/ taken[i] > 0
\* A worker claims only published indexes, and each index once.
ClaimsPublished == takeAt <= putIndex
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
