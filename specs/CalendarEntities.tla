--------------------------- MODULE CalendarEntities ---------------------------
(***************************************************************************)
(* McBride & Ferrell's database beyond one event: users, groups, calendars *)
(* and events, and the requests that span them.  A user owns a calendar,  *)
(* a calendar lists its events, a group lists its members.  Three users    *)
(* at once: J adds user u to group g, D deletes user u (whose memberships, *)
(* calendar and events go with it), A adds an event to u's calendar.  Any *)
(* may go first: 3! = 6 orderings again, and the database must end in one  *)
(* of them, with no reference to a deleted entity.                         *)
(*                                                                         *)
(* The design (java/calendar/.../CalendarDatabase.java): every change      *)
(* locks the entities it changes, and a request that locks two takes them  *)
(* in one order, users before groups before calendars.  A join locks u,    *)
(* checks u is there, locks g and adds the member.  A delete locks u,      *)
(* removes it (its commit) and unlocks; then it removes u from g under g's *)
(* lock, and deletes the calendar's events and the calendar under the      *)
(* calendar's lock.  An add locks the calendar, checks that it and its     *)
(* owner are there (the owner without its lock: the delete commits before  *)
(* it locks the calendar, and removes the event after), creates the event *)
(* and lists it.  Event modifies are CalendarStore.tla's.                 *)
(*                                                                         *)
(* Three slips, each a constant, each a verdict TLC must give:             *)
(*  - JoinNoUserLock: the join checks the user without the user's lock:    *)
(*    the delete's sweep of the group can run before the join adds a      *)
(*    member who is gone;                                                  *)
(*  - AddNoLock: the add checks the calendar without its lock, and the     *)
(*    delete removes the calendar in between: an orphan event;            *)
(*  - DeleteGroupFirst: the delete locks the group before the user (to    *)
(*    sweep the memberships before it commits), against the one order:    *)
(*    a join holding u and waiting for g waits for ever.                   *)
(***************************************************************************)
EXTENDS Integers, Sequences, FiniteSets

CONSTANTS Joiners, Deleters, Adders, JoinNoUserLock, AddNoLock, DeleteGroupFirst

ASSUME /\ Joiners \cap Deleters = {} /\ Joiners \cap Adders = {} /\ Deleters \cap Adders = {}
       /\ JoinNoUserLock \in BOOLEAN /\ AddNoLock \in BOOLEAN /\ DeleteGroupFirst \in BOOLEAN

Users == Joiners \cup Deleters \cup Adders
\* The database's state as the requests see it; user u, group g, u's calendar c, the added event e.
Start == [user |-> TRUE, member |-> FALSE, calendar |-> TRUE, event |-> FALSE, listed |-> FALSE]

(* --algorithm CalendarEntities
variables
    db = Start,                            \* what is there: user u, u in g, calendar c, event e, e listed in c
    lockU = "free", lockG = "free", lockC = "free",
    told = [r \in Users |-> "not yet"];    \* what each user was told: ok, deleted (refused), gone

define
    \* The database run one request at a time in the order o, from its i-th.
    RECURSIVE Serial(_, _, _, _)
    Serial(o, i, s, tl) ==
        IF i > Len(o) THEN [db |-> s, told |-> tl]
        ELSE LET r == o[i] IN
             IF r \in Joiners THEN
                 IF s.user THEN Serial(o, i + 1, [s EXCEPT !.member = TRUE], [tl EXCEPT ![r] = "ok"])
                 ELSE Serial(o, i + 1, s, [tl EXCEPT ![r] = "deleted"])
             ELSE IF r \in Deleters THEN
                 IF s.user THEN Serial(o, i + 1, [user |-> FALSE, member |-> FALSE, calendar |-> FALSE,
                                                  event |-> FALSE, listed |-> FALSE], [tl EXCEPT ![r] = "ok"])
                 ELSE Serial(o, i + 1, s, [tl EXCEPT ![r] = "gone"])
             ELSE IF s.calendar /\ s.user THEN
                 Serial(o, i + 1, [s EXCEPT !.event = TRUE, !.listed = TRUE], [tl EXCEPT ![r] = "ok"])
             ELSE Serial(o, i + 1, s, [tl EXCEPT ![r] = "deleted"])
    Orderings == {o \in [1..Cardinality(Users) -> Users] : \A i, j \in 1..Cardinality(Users) : i # j => o[i] # o[j]}
    Finished == \A r \in Users : pc[r] = "Done"

    \* The promises, once every request returned.  No group lists a deleted user:
    NoDanglingMember == Finished => (db.member => db.user)
    \* every event is listed by a calendar that is there, and every listed event is there:
    NoOrphanEvent == Finished => (db.event <=> (db.calendar /\ db.listed))
    \* and what the users were told, and what is left, is what one of the six orderings gives.
    OneOfTheOrderings == Finished =>
        \E o \in Orderings : Serial(o, 1, Start, [r \in Users |-> "not yet"]) = [db |-> db, told |-> told]
end define;

\* ANCHOR: join
fair process joiner \in Joiners
begin
JPeek:                                     \* the slip JoinNoUserLock: checks the user unlocked
    if JoinNoUserLock /\ ~db.user then
        told[self] := "deleted";
        goto Done;
    end if;
JLockU:
    if ~JoinNoUserLock then
        await lockU = "free";
        lockU := self;
    end if;
JCheck:
    if ~JoinNoUserLock /\ ~db.user then
        told[self] := "deleted";           \* "this user was deleted"
        goto JUnlockU;
    end if;
JLockG:                                    \* users before groups
    await lockG = "free";
    lockG := self;
JAdd:
    db.member := TRUE;
    told[self] := "ok";
JUnlockG:
    lockG := "free";
JUnlockU:
    if lockU = self then lockU := "free"; end if;
end process;
\* ANCHOR_END: join

\* ANCHOR: deleteUser
fair process deleter \in Deleters
begin
DLockG:                                    \* the slip DeleteGroupFirst: the group before the user
    if DeleteGroupFirst then
        await lockG = "free";
        lockG := self;
    end if;
DLockU:
    await lockU = "free";
    lockU := self;
DCommit:
    if ~db.user then
        told[self] := "gone";
        lockU := "free";
        if DeleteGroupFirst then lockG := "free"; end if;
        goto Done;
    end if;
DRemove:
    db.user := FALSE;                      \* the commit: the user's link goes
    told[self] := "ok";
DUnlockU:
    lockU := "free";
DSweepLock:                                \* every group that lists the user: here, g
    if ~DeleteGroupFirst then
        await lockG = "free";
        lockG := self;
    end if;
DSweep:
    db.member := FALSE;
    lockG := "free";
DLockC:
    await lockC = "free";
    lockC := self;
DCalendar:                                 \* its events, then the calendar (and its list)
    db := [db EXCEPT !.event = FALSE, !.listed = FALSE, !.calendar = FALSE];
    lockC := "free";
end process;
\* ANCHOR_END: deleteUser

\* ANCHOR: addEvent
fair process adder \in Adders
begin
APeek:                                     \* the slip AddNoLock: checks the calendar unlocked
    if AddNoLock /\ ~(db.calendar /\ db.user) then
        told[self] := "deleted";
        goto Done;
    end if;
ALock:
    if ~AddNoLock then
        await lockC = "free";
        lockC := self;
    end if;
ACheck:
    if ~AddNoLock /\ ~(db.calendar /\ db.user) then
        told[self] := "deleted";
        goto AUnlock;
    end if;
ACreate:                                   \* the event's own directory, not yet in any calendar
    db.event := TRUE;
AList:                                     \* the commit: the calendar lists it
    db.listed := TRUE;
    told[self] := "ok";
AUnlock:
    if lockC = self then lockC := "free"; end if;
end process;
\* ANCHOR_END: addEvent
end algorithm; *)
\* BEGIN TRANSLATION
VARIABLES db, lockU, lockG, lockC, told, pc

(* define statement *)
RECURSIVE Serial(_, _, _, _)
Serial(o, i, s, tl) ==
    IF i > Len(o) THEN [db |-> s, told |-> tl]
    ELSE LET r == o[i] IN
         IF r \in Joiners THEN
             IF s.user THEN Serial(o, i + 1, [s EXCEPT !.member = TRUE], [tl EXCEPT ![r] = "ok"])
             ELSE Serial(o, i + 1, s, [tl EXCEPT ![r] = "deleted"])
         ELSE IF r \in Deleters THEN
             IF s.user THEN Serial(o, i + 1, [user |-> FALSE, member |-> FALSE, calendar |-> FALSE,
                                              event |-> FALSE, listed |-> FALSE], [tl EXCEPT ![r] = "ok"])
             ELSE Serial(o, i + 1, s, [tl EXCEPT ![r] = "gone"])
         ELSE IF s.calendar /\ s.user THEN
             Serial(o, i + 1, [s EXCEPT !.event = TRUE, !.listed = TRUE], [tl EXCEPT ![r] = "ok"])
         ELSE Serial(o, i + 1, s, [tl EXCEPT ![r] = "deleted"])
Orderings == {o \in [1..Cardinality(Users) -> Users] : \A i, j \in 1..Cardinality(Users) : i # j => o[i] # o[j]}
Finished == \A r \in Users : pc[r] = "Done"


NoDanglingMember == Finished => (db.member => db.user)

NoOrphanEvent == Finished => (db.event <=> (db.calendar /\ db.listed))

OneOfTheOrderings == Finished =>
    \E o \in Orderings : Serial(o, 1, Start, [r \in Users |-> "not yet"]) = [db |-> db, told |-> told]


vars == << db, lockU, lockG, lockC, told, pc >>

ProcSet == (Joiners) \cup (Deleters) \cup (Adders)

Init == (* Global variables *)
        /\ db = Start
        /\ lockU = "free"
        /\ lockG = "free"
        /\ lockC = "free"
        /\ told = [r \in Users |-> "not yet"]
        /\ pc = [self \in ProcSet |-> CASE self \in Joiners -> "JPeek"
                                        [] self \in Deleters -> "DLockG"
                                        [] self \in Adders -> "APeek"]

JPeek(self) == /\ pc[self] = "JPeek"
               /\ IF JoinNoUserLock /\ ~db.user
                     THEN /\ told' = [told EXCEPT ![self] = "deleted"]
                          /\ pc' = [pc EXCEPT ![self] = "Done"]
                     ELSE /\ pc' = [pc EXCEPT ![self] = "JLockU"]
                          /\ told' = told
               /\ UNCHANGED << db, lockU, lockG, lockC >>

JLockU(self) == /\ pc[self] = "JLockU"
                /\ IF ~JoinNoUserLock
                      THEN /\ lockU = "free"
                           /\ lockU' = self
                      ELSE /\ TRUE
                           /\ lockU' = lockU
                /\ pc' = [pc EXCEPT ![self] = "JCheck"]
                /\ UNCHANGED << db, lockG, lockC, told >>

JCheck(self) == /\ pc[self] = "JCheck"
                /\ IF ~JoinNoUserLock /\ ~db.user
                      THEN /\ told' = [told EXCEPT ![self] = "deleted"]
                           /\ pc' = [pc EXCEPT ![self] = "JUnlockU"]
                      ELSE /\ pc' = [pc EXCEPT ![self] = "JLockG"]
                           /\ told' = told
                /\ UNCHANGED << db, lockU, lockG, lockC >>

JLockG(self) == /\ pc[self] = "JLockG"
                /\ lockG = "free"
                /\ lockG' = self
                /\ pc' = [pc EXCEPT ![self] = "JAdd"]
                /\ UNCHANGED << db, lockU, lockC, told >>

JAdd(self) == /\ pc[self] = "JAdd"
              /\ db' = [db EXCEPT !.member = TRUE]
              /\ told' = [told EXCEPT ![self] = "ok"]
              /\ pc' = [pc EXCEPT ![self] = "JUnlockG"]
              /\ UNCHANGED << lockU, lockG, lockC >>

JUnlockG(self) == /\ pc[self] = "JUnlockG"
                  /\ lockG' = "free"
                  /\ pc' = [pc EXCEPT ![self] = "JUnlockU"]
                  /\ UNCHANGED << db, lockU, lockC, told >>

JUnlockU(self) == /\ pc[self] = "JUnlockU"
                  /\ IF lockU = self
                        THEN /\ lockU' = "free"
                        ELSE /\ TRUE
                             /\ lockU' = lockU
                  /\ pc' = [pc EXCEPT ![self] = "Done"]
                  /\ UNCHANGED << db, lockG, lockC, told >>

joiner(self) == JPeek(self) \/ JLockU(self) \/ JCheck(self) \/ JLockG(self)
                   \/ JAdd(self) \/ JUnlockG(self) \/ JUnlockU(self)

DLockG(self) == /\ pc[self] = "DLockG"
                /\ IF DeleteGroupFirst
                      THEN /\ lockG = "free"
                           /\ lockG' = self
                      ELSE /\ TRUE
                           /\ lockG' = lockG
                /\ pc' = [pc EXCEPT ![self] = "DLockU"]
                /\ UNCHANGED << db, lockU, lockC, told >>

DLockU(self) == /\ pc[self] = "DLockU"
                /\ lockU = "free"
                /\ lockU' = self
                /\ pc' = [pc EXCEPT ![self] = "DCommit"]
                /\ UNCHANGED << db, lockG, lockC, told >>

DCommit(self) == /\ pc[self] = "DCommit"
                 /\ IF ~db.user
                       THEN /\ told' = [told EXCEPT ![self] = "gone"]
                            /\ lockU' = "free"
                            /\ IF DeleteGroupFirst
                                  THEN /\ lockG' = "free"
                                  ELSE /\ TRUE
                                       /\ lockG' = lockG
                            /\ pc' = [pc EXCEPT ![self] = "Done"]
                       ELSE /\ pc' = [pc EXCEPT ![self] = "DRemove"]
                            /\ UNCHANGED << lockU, lockG, told >>
                 /\ UNCHANGED << db, lockC >>

DRemove(self) == /\ pc[self] = "DRemove"
                 /\ db' = [db EXCEPT !.user = FALSE]
                 /\ told' = [told EXCEPT ![self] = "ok"]
                 /\ pc' = [pc EXCEPT ![self] = "DUnlockU"]
                 /\ UNCHANGED << lockU, lockG, lockC >>

DUnlockU(self) == /\ pc[self] = "DUnlockU"
                  /\ lockU' = "free"
                  /\ pc' = [pc EXCEPT ![self] = "DSweepLock"]
                  /\ UNCHANGED << db, lockG, lockC, told >>

DSweepLock(self) == /\ pc[self] = "DSweepLock"
                    /\ IF ~DeleteGroupFirst
                          THEN /\ lockG = "free"
                               /\ lockG' = self
                          ELSE /\ TRUE
                               /\ lockG' = lockG
                    /\ pc' = [pc EXCEPT ![self] = "DSweep"]
                    /\ UNCHANGED << db, lockU, lockC, told >>

DSweep(self) == /\ pc[self] = "DSweep"
                /\ db' = [db EXCEPT !.member = FALSE]
                /\ lockG' = "free"
                /\ pc' = [pc EXCEPT ![self] = "DLockC"]
                /\ UNCHANGED << lockU, lockC, told >>

DLockC(self) == /\ pc[self] = "DLockC"
                /\ lockC = "free"
                /\ lockC' = self
                /\ pc' = [pc EXCEPT ![self] = "DCalendar"]
                /\ UNCHANGED << db, lockU, lockG, told >>

DCalendar(self) == /\ pc[self] = "DCalendar"
                   /\ db' = [db EXCEPT !.event = FALSE, !.listed = FALSE, !.calendar = FALSE]
                   /\ lockC' = "free"
                   /\ pc' = [pc EXCEPT ![self] = "Done"]
                   /\ UNCHANGED << lockU, lockG, told >>

deleter(self) == DLockG(self) \/ DLockU(self) \/ DCommit(self)
                    \/ DRemove(self) \/ DUnlockU(self) \/ DSweepLock(self)
                    \/ DSweep(self) \/ DLockC(self) \/ DCalendar(self)

APeek(self) == /\ pc[self] = "APeek"
               /\ IF AddNoLock /\ ~(db.calendar /\ db.user)
                     THEN /\ told' = [told EXCEPT ![self] = "deleted"]
                          /\ pc' = [pc EXCEPT ![self] = "Done"]
                     ELSE /\ pc' = [pc EXCEPT ![self] = "ALock"]
                          /\ told' = told
               /\ UNCHANGED << db, lockU, lockG, lockC >>

ALock(self) == /\ pc[self] = "ALock"
               /\ IF ~AddNoLock
                     THEN /\ lockC = "free"
                          /\ lockC' = self
                     ELSE /\ TRUE
                          /\ lockC' = lockC
               /\ pc' = [pc EXCEPT ![self] = "ACheck"]
               /\ UNCHANGED << db, lockU, lockG, told >>

ACheck(self) == /\ pc[self] = "ACheck"
                /\ IF ~AddNoLock /\ ~(db.calendar /\ db.user)
                      THEN /\ told' = [told EXCEPT ![self] = "deleted"]
                           /\ pc' = [pc EXCEPT ![self] = "AUnlock"]
                      ELSE /\ pc' = [pc EXCEPT ![self] = "ACreate"]
                           /\ told' = told
                /\ UNCHANGED << db, lockU, lockG, lockC >>

ACreate(self) == /\ pc[self] = "ACreate"
                 /\ db' = [db EXCEPT !.event = TRUE]
                 /\ pc' = [pc EXCEPT ![self] = "AList"]
                 /\ UNCHANGED << lockU, lockG, lockC, told >>

AList(self) == /\ pc[self] = "AList"
               /\ db' = [db EXCEPT !.listed = TRUE]
               /\ told' = [told EXCEPT ![self] = "ok"]
               /\ pc' = [pc EXCEPT ![self] = "AUnlock"]
               /\ UNCHANGED << lockU, lockG, lockC >>

AUnlock(self) == /\ pc[self] = "AUnlock"
                 /\ IF lockC = self
                       THEN /\ lockC' = "free"
                       ELSE /\ TRUE
                            /\ lockC' = lockC
                 /\ pc' = [pc EXCEPT ![self] = "Done"]
                 /\ UNCHANGED << db, lockU, lockG, told >>

adder(self) == APeek(self) \/ ALock(self) \/ ACheck(self) \/ ACreate(self)
                  \/ AList(self) \/ AUnlock(self)

(* Allow infinite stuttering to prevent deadlock on termination. *)
Terminating == /\ \A self \in ProcSet: pc[self] = "Done"
               /\ UNCHANGED vars

Next == (\E self \in Joiners: joiner(self))
           \/ (\E self \in Deleters: deleter(self))
           \/ (\E self \in Adders: adder(self))
           \/ Terminating

Spec == /\ Init /\ [][Next]_vars
        /\ \A self \in Joiners : WF_vars(joiner(self))
        /\ \A self \in Deleters : WF_vars(deleter(self))
        /\ \A self \in Adders : WF_vars(adder(self))

Termination == <>(\A self \in ProcSet: pc[self] = "Done")

\* END TRANSLATION

=============================================================================
