---------------------------- MODULE CalendarStore ----------------------------
(***************************************************************************)
(* McBride & Ferrell's calendar store (CoCal): one event, and users who    *)
(* modify it, delete it and load it at once.  Their example has three:     *)
(* A modifies event 62 (moves it: a new date and a new time), B deletes    *)
(* it, C loads his calendar.  Any of the three may go first, so there are  *)
(* 3! = 6 orderings, and the store must end in one of them: the results    *)
(* every user saw are those of the requests run one at a time, in some     *)
(* order.  A modify that comes after the delete is refused ("this event    *)
(* was deleted"), never applied.                                           *)
(*                                                                         *)
(* The store keeps the event as a directory with one file per attribute,  *)
(* as the paper designs it.  A modify locks the event, checks that it      *)
(* still exists, writes its attribute files into a staged copy one at a    *)
(* time and publishes the copy in one step (a rename on disk, one          *)
(* reference in memory), then unlocks.  A delete takes the same lock (the  *)
(* paper's lock on the event's directory).  A load takes no lock, as in    *)
(* the paper: it reads the published event in one step.                   *)
(*                                                                         *)
(* Four slips, each a constant, each a verdict TLC must give:              *)
(*  - CheckThenLock: the modify checks that the event exists before it     *)
(*    locks, and a delete slips in between;                                *)
(*  - DeleteNoLock: the delete removes the directory without its lock,    *)
(*    in the middle of a modify;                                           *)
(*  - Recreate: a modify that finds the event deleted writes it back       *)
(*    under the same id (the paper's "clone" done silently);               *)
(*  - InPlace: the modify writes each attribute file where the event      *)
(*    lives, so a load can read a new date beside the old time.           *)
(***************************************************************************)
EXTENDS Integers, Sequences, FiniteSets

CONSTANTS Modifiers, Deleters, Loaders, CheckThenLock, DeleteNoLock, Recreate, InPlace

ASSUME /\ Modifiers \cap Deleters = {} /\ Modifiers \cap Loaders = {} /\ Deleters \cap Loaders = {}
       /\ CheckThenLock \in BOOLEAN /\ DeleteNoLock \in BOOLEAN /\ Recreate \in BOOLEAN /\ InPlace \in BOOLEAN

Attrs == {"date", "time"}                \* the attribute files a move rewrites
Original == "original"                   \* the attributes' values before any modify
Whole(v) == [a \in Attrs |-> v]          \* an event whose every attribute reads v
Users == Modifiers \cup Deleters \cup Loaders
Nothing == Whole("nothing")              \* what a load saw before it returned, or when it found no event

(* --algorithm CalendarStore
variables
    exists = TRUE,                       \* the event's directory is there
    event = Whole(Original),             \* the published event: a modifier m writes m into every attribute
    lock = "free",                       \* the event's lock: free, or the user holding it
    deleted = FALSE,                     \* a delete has removed the event (history, for NoResurrection)
    told = [u \in Users |-> "not yet"],  \* what each user was told: ok, deleted, gone; loaded, absent
    saw = [u \in Loaders |-> Nothing];   \* the event a load found

define
    \* The store run one request at a time in the order o (a sequence of users), from its i-th:
    \* its final state and what each user would be told.
    RECURSIVE Serial(_, _, _, _, _, _)
    Serial(o, i, e, ev, tl, sw) ==
        IF i > Len(o) THEN [told |-> tl, saw |-> sw, exists |-> e]
        ELSE LET u == o[i] IN
             IF u \in Modifiers THEN
                 IF e THEN Serial(o, i + 1, e, Whole(u), [tl EXCEPT ![u] = "ok"], sw)
                      ELSE Serial(o, i + 1, e, ev, [tl EXCEPT ![u] = "deleted"], sw)
             ELSE IF u \in Deleters THEN
                 Serial(o, i + 1, FALSE, ev, [tl EXCEPT ![u] = IF e THEN "ok" ELSE "gone"], sw)
             ELSE IF e THEN Serial(o, i + 1, e, ev, [tl EXCEPT ![u] = "loaded"], [sw EXCEPT ![u] = ev])
                  ELSE Serial(o, i + 1, e, ev, [tl EXCEPT ![u] = "absent"], sw)
    \* Every order of the users: 3! = 6 for the paper's three.
    Orderings == {o \in [1..Cardinality(Users) -> Users] : \A i, j \in 1..Cardinality(Users) : i # j => o[i] # o[j]}
    Finished == \A u \in Users : pc[u] = "Done"

    \* The promises.  Once every request returned, what the users were told is what one of the
    \* orderings tells them, and the event is where that ordering leaves it.
    OneOfTheOrderings == Finished =>
        \E o \in Orderings : Serial(o, 1, TRUE, Whole(Original), told, [u \in Loaders |-> Nothing])
                                = [told |-> told, saw |-> saw, exists |-> exists]
    \* A deleted event stays deleted: no late modify brings it back.
    NoResurrection == deleted => ~exists
    \* A load sees the event as one modify (or none) left it, never half of one.
    WholeLoads == \A u \in Loaders : saw[u] \in {Whole(v) : v \in {Original, "nothing"} \cup Modifiers}
end define;

\* ANCHOR: modify
fair process modifier \in Modifiers
variables staged = event, todo = Attrs;
begin
Peek:                                         \* the slip CheckThenLock: looks before it locks
    if CheckThenLock /\ ~exists then
        told[self] := "deleted";
        goto Done;
    end if;
Lock:
    await lock = "free";
    lock := self;
Check:
    if ~CheckThenLock /\ ~exists then
        if Recreate then                      \* the slip: writes the deleted event back, same id
            exists := TRUE;
            event := Whole(self);
            told[self] := "ok";
        else
            told[self] := "deleted";          \* "this event was deleted": clone it or abandon
        end if;
        goto Unlock;
    end if;
Stage:                                        \* a copy of the event to write into
    staged := event;
Write:                                        \* one attribute file at a time
    while todo # {} do
        with a \in todo do
            if InPlace then event[a] := self; else staged[a] := self; end if;
            todo := todo \ {a};
        end with;
    end while;
Publish:                                      \* one rename: the event appears whole (and re-created,
    if ~InPlace then                          \* were its directory removed under it)
        event := staged;
        exists := TRUE;
    end if;
    told[self] := "ok";
Unlock:
    lock := "free";
end process;
\* ANCHOR_END: modify

\* ANCHOR: delete
fair process deleter \in Deleters
begin
DLock:
    if ~DeleteNoLock then
        await lock = "free";
        lock := self;
    end if;
Remove:
    if exists then
        exists := FALSE;
        deleted := TRUE;
        told[self] := "ok";
    else
        told[self] := "gone";
    end if;
DUnlock:
    if ~DeleteNoLock then lock := "free"; end if;
end process;
\* ANCHOR_END: delete

\* ANCHOR: load
fair process loader \in Loaders
begin
Load:
    if exists then
        told[self] := "loaded";
        saw[self] := event;
    else
        told[self] := "absent";
    end if;
end process;
\* ANCHOR_END: load
end algorithm; *)
\* BEGIN TRANSLATION
VARIABLES exists, event, lock, deleted, told, saw, pc

(* define statement *)
RECURSIVE Serial(_, _, _, _, _, _)
Serial(o, i, e, ev, tl, sw) ==
    IF i > Len(o) THEN [told |-> tl, saw |-> sw, exists |-> e]
    ELSE LET u == o[i] IN
         IF u \in Modifiers THEN
             IF e THEN Serial(o, i + 1, e, Whole(u), [tl EXCEPT ![u] = "ok"], sw)
                  ELSE Serial(o, i + 1, e, ev, [tl EXCEPT ![u] = "deleted"], sw)
         ELSE IF u \in Deleters THEN
             Serial(o, i + 1, FALSE, ev, [tl EXCEPT ![u] = IF e THEN "ok" ELSE "gone"], sw)
         ELSE IF e THEN Serial(o, i + 1, e, ev, [tl EXCEPT ![u] = "loaded"], [sw EXCEPT ![u] = ev])
              ELSE Serial(o, i + 1, e, ev, [tl EXCEPT ![u] = "absent"], sw)

Orderings == {o \in [1..Cardinality(Users) -> Users] : \A i, j \in 1..Cardinality(Users) : i # j => o[i] # o[j]}
Finished == \A u \in Users : pc[u] = "Done"



OneOfTheOrderings == Finished =>
    \E o \in Orderings : Serial(o, 1, TRUE, Whole(Original), told, [u \in Loaders |-> Nothing])
                            = [told |-> told, saw |-> saw, exists |-> exists]

NoResurrection == deleted => ~exists

WholeLoads == \A u \in Loaders : saw[u] \in {Whole(v) : v \in {Original, "nothing"} \cup Modifiers}

VARIABLES staged, todo

vars == << exists, event, lock, deleted, told, saw, pc, staged, todo >>

ProcSet == (Modifiers) \cup (Deleters) \cup (Loaders)

Init == (* Global variables *)
        /\ exists = TRUE
        /\ event = Whole(Original)
        /\ lock = "free"
        /\ deleted = FALSE
        /\ told = [u \in Users |-> "not yet"]
        /\ saw = [u \in Loaders |-> Nothing]
        (* Process modifier *)
        /\ staged = [self \in Modifiers |-> event]
        /\ todo = [self \in Modifiers |-> Attrs]
        /\ pc = [self \in ProcSet |-> CASE self \in Modifiers -> "Peek"
                                        [] self \in Deleters -> "DLock"
                                        [] self \in Loaders -> "Load"]

Peek(self) == /\ pc[self] = "Peek"
              /\ IF CheckThenLock /\ ~exists
                    THEN /\ told' = [told EXCEPT ![self] = "deleted"]
                         /\ pc' = [pc EXCEPT ![self] = "Done"]
                    ELSE /\ pc' = [pc EXCEPT ![self] = "Lock"]
                         /\ told' = told
              /\ UNCHANGED << exists, event, lock, deleted, saw, staged, todo >>

Lock(self) == /\ pc[self] = "Lock"
              /\ lock = "free"
              /\ lock' = self
              /\ pc' = [pc EXCEPT ![self] = "Check"]
              /\ UNCHANGED << exists, event, deleted, told, saw, staged, todo >>

Check(self) == /\ pc[self] = "Check"
               /\ IF ~CheckThenLock /\ ~exists
                     THEN /\ IF Recreate
                                THEN /\ exists' = TRUE
                                     /\ event' = Whole(self)
                                     /\ told' = [told EXCEPT ![self] = "ok"]
                                ELSE /\ told' = [told EXCEPT ![self] = "deleted"]
                                     /\ UNCHANGED << exists, event >>
                          /\ pc' = [pc EXCEPT ![self] = "Unlock"]
                     ELSE /\ pc' = [pc EXCEPT ![self] = "Stage"]
                          /\ UNCHANGED << exists, event, told >>
               /\ UNCHANGED << lock, deleted, saw, staged, todo >>

Stage(self) == /\ pc[self] = "Stage"
               /\ staged' = [staged EXCEPT ![self] = event]
               /\ pc' = [pc EXCEPT ![self] = "Write"]
               /\ UNCHANGED << exists, event, lock, deleted, told, saw, todo >>

Write(self) == /\ pc[self] = "Write"
               /\ IF todo[self] # {}
                     THEN /\ \E a \in todo[self]:
                               /\ IF InPlace
                                     THEN /\ event' = [event EXCEPT ![a] = self]
                                          /\ UNCHANGED staged
                                     ELSE /\ staged' = [staged EXCEPT ![self][a] = self]
                                          /\ event' = event
                               /\ todo' = [todo EXCEPT ![self] = todo[self] \ {a}]
                          /\ pc' = [pc EXCEPT ![self] = "Write"]
                     ELSE /\ pc' = [pc EXCEPT ![self] = "Publish"]
                          /\ UNCHANGED << event, staged, todo >>
               /\ UNCHANGED << exists, lock, deleted, told, saw >>

Publish(self) == /\ pc[self] = "Publish"
                 /\ IF ~InPlace
                       THEN /\ event' = staged[self]
                            /\ exists' = TRUE
                       ELSE /\ TRUE
                            /\ UNCHANGED << exists, event >>
                 /\ told' = [told EXCEPT ![self] = "ok"]
                 /\ pc' = [pc EXCEPT ![self] = "Unlock"]
                 /\ UNCHANGED << lock, deleted, saw, staged, todo >>

Unlock(self) == /\ pc[self] = "Unlock"
                /\ lock' = "free"
                /\ pc' = [pc EXCEPT ![self] = "Done"]
                /\ UNCHANGED << exists, event, deleted, told, saw, staged, 
                                todo >>

modifier(self) == Peek(self) \/ Lock(self) \/ Check(self) \/ Stage(self)
                     \/ Write(self) \/ Publish(self) \/ Unlock(self)

DLock(self) == /\ pc[self] = "DLock"
               /\ IF ~DeleteNoLock
                     THEN /\ lock = "free"
                          /\ lock' = self
                     ELSE /\ TRUE
                          /\ lock' = lock
               /\ pc' = [pc EXCEPT ![self] = "Remove"]
               /\ UNCHANGED << exists, event, deleted, told, saw, staged, todo >>

Remove(self) == /\ pc[self] = "Remove"
                /\ IF exists
                      THEN /\ exists' = FALSE
                           /\ deleted' = TRUE
                           /\ told' = [told EXCEPT ![self] = "ok"]
                      ELSE /\ told' = [told EXCEPT ![self] = "gone"]
                           /\ UNCHANGED << exists, deleted >>
                /\ pc' = [pc EXCEPT ![self] = "DUnlock"]
                /\ UNCHANGED << event, lock, saw, staged, todo >>

DUnlock(self) == /\ pc[self] = "DUnlock"
                 /\ IF ~DeleteNoLock
                       THEN /\ lock' = "free"
                       ELSE /\ TRUE
                            /\ lock' = lock
                 /\ pc' = [pc EXCEPT ![self] = "Done"]
                 /\ UNCHANGED << exists, event, deleted, told, saw, staged, 
                                 todo >>

deleter(self) == DLock(self) \/ Remove(self) \/ DUnlock(self)

Load(self) == /\ pc[self] = "Load"
              /\ IF exists
                    THEN /\ told' = [told EXCEPT ![self] = "loaded"]
                         /\ saw' = [saw EXCEPT ![self] = event]
                    ELSE /\ told' = [told EXCEPT ![self] = "absent"]
                         /\ saw' = saw
              /\ pc' = [pc EXCEPT ![self] = "Done"]
              /\ UNCHANGED << exists, event, lock, deleted, staged, todo >>

loader(self) == Load(self)

(* Allow infinite stuttering to prevent deadlock on termination. *)
Terminating == /\ \A self \in ProcSet: pc[self] = "Done"
               /\ UNCHANGED vars

Next == (\E self \in Modifiers: modifier(self))
           \/ (\E self \in Deleters: deleter(self))
           \/ (\E self \in Loaders: loader(self))
           \/ Terminating

Spec == /\ Init /\ [][Next]_vars
        /\ \A self \in Modifiers : WF_vars(modifier(self))
        /\ \A self \in Deleters : WF_vars(deleter(self))
        /\ \A self \in Loaders : WF_vars(loader(self))

Termination == <>(\A self \in ProcSet: pc[self] = "Done")

\* END TRANSLATION
=============================================================================
