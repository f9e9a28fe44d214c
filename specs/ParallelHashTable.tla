------------------------- MODULE ParallelHashTable -------------------------
(***************************************************************************)
(* The parallel hash table (PHT) of Roussev & Wu (JSA 2006, Sec. 4): M      *)
(* slots, each a reference under its own lock (a SynchronizedRef), so      *)
(* threads on different slots never wait for each other.  The acceptor     *)
(* (ONE producer) inserts a connection with key k by double hashing:       *)
(* probe h1(k), h1(k)+h2(k), ... until a slot reads null, then set it.     *)
(* A worker starts from a pseudo-random key and probes the same way,       *)
(* atomically swapping each slot with null until it gets a connection.     *)
(* Exactly once rests on three things, each broken by a variant:           *)
(*   - one producer: its read-then-set is not atomic (TwoProducerPht);     *)
(*   - the atomic swap (SplitSwapPht reads, then clears, in two steps);    *)
(*   - M prime, so h2 = 1 + k mod (M-1) is coprime to M and every probe    *)
(*     sequence visits every slot (NonPrimePht, M = 4).                     *)
(* Waiting when the table is full or empty is modelled as `await` (the     *)
(* Java class waits on a monitor; the paper's wait(500) polling is a defect*)
(* the kit does not copy).                                                 *)
(***************************************************************************)
EXTENDS Integers, FiniteSets

CONSTANTS Acceptors, Workers, M, NConns, KeySpace, SplitSwap, Null

ASSUME /\ Acceptors # {} /\ Workers # {} /\ Acceptors \cap Workers = {}
       /\ M \in Nat /\ M >= 2 /\ NConns \in Nat \ {0} /\ KeySpace \in Nat \ {0} /\ SplitSwap \in BOOLEAN

Conns  == 1..NConns
Values == Conns \cup {Null}
Slots  == 0..(M - 1)

\* A connection's key, its hashCode: KeySpace < NConns makes keys collide, as real ones do.
KeyOf(c) == c % KeySpace
\* Double hashing (JSA 2006, Sec. 4): the i-th slot probed for key k.
H1(k) == k % M
H2(k) == 1 + (k % (M - 1))
SlotOf(k, i) == (H1(k) + i * H2(k)) % M

(* --algorithm ParallelHashTable
variables
    slot = [s \in Slots |-> Null],    \* each slot is guarded by its own lock: one step, one slot
    accepted = 0,
    taken = [v \in Values |-> 0];

\* ANCHOR: acceptor
fair process acceptor \in Acceptors
variables conn = Null, tries = 0;   \* probes made for conn
begin
Accept:
    while accepted < NConns do
        accepted := accepted + 1; conn := accepted; tries := 0;
Probe:                                          \* get(): read one slot
        if slot[SlotOf(KeyOf(conn), tries)] = Null then
Insert:                                         \* set(): a second call; safe with ONE producer only
            slot[SlotOf(KeyOf(conn), tries)] := conn; conn := Null;
        elsif tries < M - 1 then
            tries := tries + 1; goto Probe;
        else
Full:                                           \* every probe failed: wait for a free slot, probe again
            await \E s \in Slots : slot[s] = Null; tries := 0; goto Probe;
        end if;
    end while;
end process;
\* ANCHOR_END: acceptor

\* ANCHOR: worker
fair process worker \in Workers
variables got = Null, key = 0, looks = 0;   \* the start key; probes made
begin
Start:
    while TRUE do
        with r \in Slots do key := r; end with;   \* a pseudo-random start key
        looks := 0;
Search:
        if SplitSwap then
            got := slot[SlotOf(key, looks)];          \* BUG: read ...
            if got # Null then
Clear:
                slot[SlotOf(key, looks)] := Null;     \* ... then clear: another worker may read it between
            end if;
        else
            got := slot[SlotOf(key, looks)];          \* the atomic swap with null: one step
            slot[SlotOf(key, looks)] := Null;
        end if;
Found:
        if got # Null then
            taken[got] := taken[got] + 1; got := Null;
        elsif looks < M - 1 then
            looks := looks + 1; goto Search;
        else
Empty:                                          \* nothing found: wait for an insert, search again
            await \E s \in Slots : slot[s] # Null;
        end if;
    end while;
end process;
\* ANCHOR_END: worker
end algorithm; *)
\* BEGIN TRANSLATION
VARIABLES slot, accepted, taken, pc, conn, tries, got, key, looks

vars == << slot, accepted, taken, pc, conn, tries, got, key, looks >>

ProcSet == (Acceptors) \cup (Workers)

Init == (* Global variables *)
        /\ slot = [s \in Slots |-> Null]
        /\ accepted = 0
        /\ taken = [v \in Values |-> 0]
        (* Process acceptor *)
        /\ conn = [self \in Acceptors |-> Null]
        /\ tries = [self \in Acceptors |-> 0]
        (* Process worker *)
        /\ got = [self \in Workers |-> Null]
        /\ key = [self \in Workers |-> 0]
        /\ looks = [self \in Workers |-> 0]
        /\ pc = [self \in ProcSet |-> CASE self \in Acceptors -> "Accept"
                                        [] self \in Workers -> "Start"]

Accept(self) == /\ pc[self] = "Accept"
                /\ IF accepted < NConns
                      THEN /\ accepted' = accepted + 1
                           /\ conn' = [conn EXCEPT ![self] = accepted']
                           /\ tries' = [tries EXCEPT ![self] = 0]
                           /\ pc' = [pc EXCEPT ![self] = "Probe"]
                      ELSE /\ pc' = [pc EXCEPT ![self] = "Done"]
                           /\ UNCHANGED << accepted, conn, tries >>
                /\ UNCHANGED << slot, taken, got, key, looks >>

Probe(self) == /\ pc[self] = "Probe"
               /\ IF slot[SlotOf(KeyOf(conn[self]), tries[self])] = Null
                     THEN /\ pc' = [pc EXCEPT ![self] = "Insert"]
                          /\ tries' = tries
                     ELSE /\ IF tries[self] < M - 1
                                THEN /\ tries' = [tries EXCEPT ![self] = tries[self] + 1]
                                     /\ pc' = [pc EXCEPT ![self] = "Probe"]
                                ELSE /\ pc' = [pc EXCEPT ![self] = "Full"]
                                     /\ tries' = tries
               /\ UNCHANGED << slot, accepted, taken, conn, got, key, looks >>

Insert(self) == /\ pc[self] = "Insert"
                /\ slot' = [slot EXCEPT ![SlotOf(KeyOf(conn[self]), tries[self])] = conn[self]]
                /\ conn' = [conn EXCEPT ![self] = Null]
                /\ pc' = [pc EXCEPT ![self] = "Accept"]
                /\ UNCHANGED << accepted, taken, tries, got, key, looks >>

Full(self) == /\ pc[self] = "Full"
              /\ \E s \in Slots : slot[s] = Null
              /\ tries' = [tries EXCEPT ![self] = 0]
              /\ pc' = [pc EXCEPT ![self] = "Probe"]
              /\ UNCHANGED << slot, accepted, taken, conn, got, key, looks >>

acceptor(self) == Accept(self) \/ Probe(self) \/ Insert(self) \/ Full(self)

Start(self) == /\ pc[self] = "Start"
               /\ \E r \in Slots:
                    key' = [key EXCEPT ![self] = r]
               /\ looks' = [looks EXCEPT ![self] = 0]
               /\ pc' = [pc EXCEPT ![self] = "Search"]
               /\ UNCHANGED << slot, accepted, taken, conn, tries, got >>

Search(self) == /\ pc[self] = "Search"
                /\ IF SplitSwap
                      THEN /\ got' = [got EXCEPT ![self] = slot[SlotOf(key[self], looks[self])]]
                           /\ IF got'[self] # Null
                                 THEN /\ pc' = [pc EXCEPT ![self] = "Clear"]
                                 ELSE /\ pc' = [pc EXCEPT ![self] = "Found"]
                           /\ slot' = slot
                      ELSE /\ got' = [got EXCEPT ![self] = slot[SlotOf(key[self], looks[self])]]
                           /\ slot' = [slot EXCEPT ![SlotOf(key[self], looks[self])] = Null]
                           /\ pc' = [pc EXCEPT ![self] = "Found"]
                /\ UNCHANGED << accepted, taken, conn, tries, key, looks >>

Clear(self) == /\ pc[self] = "Clear"
               /\ slot' = [slot EXCEPT ![SlotOf(key[self], looks[self])] = Null]
               /\ pc' = [pc EXCEPT ![self] = "Found"]
               /\ UNCHANGED << accepted, taken, conn, tries, got, key, looks >>

Found(self) == /\ pc[self] = "Found"
               /\ IF got[self] # Null
                     THEN /\ taken' = [taken EXCEPT ![got[self]] = taken[got[self]] + 1]
                          /\ got' = [got EXCEPT ![self] = Null]
                          /\ pc' = [pc EXCEPT ![self] = "Start"]
                          /\ looks' = looks
                     ELSE /\ IF looks[self] < M - 1
                                THEN /\ looks' = [looks EXCEPT ![self] = looks[self] + 1]
                                     /\ pc' = [pc EXCEPT ![self] = "Search"]
                                ELSE /\ pc' = [pc EXCEPT ![self] = "Empty"]
                                     /\ looks' = looks
                          /\ UNCHANGED << taken, got >>
               /\ UNCHANGED << slot, accepted, conn, tries, key >>

Empty(self) == /\ pc[self] = "Empty"
               /\ \E s \in Slots : slot[s] # Null
               /\ pc' = [pc EXCEPT ![self] = "Start"]
               /\ UNCHANGED << slot, accepted, taken, conn, tries, got, key, 
                               looks >>

worker(self) == Start(self) \/ Search(self) \/ Clear(self) \/ Found(self)
                   \/ Empty(self)

Next == (\E self \in Acceptors: acceptor(self))
           \/ (\E self \in Workers: worker(self))

Spec == /\ Init /\ [][Next]_vars
        /\ \A self \in Acceptors : WF_vars(acceptor(self))
        /\ \A self \in Workers : WF_vars(worker(self))

\* END TRANSLATION

-----------------------------------------------------------------------------
TypeOK ==
    /\ slot \in [Slots -> Values] /\ accepted \in 0..NConns /\ taken \in [Values -> Nat]
    /\ conn \in [Acceptors -> Values] /\ got \in [Workers -> Values]

NoDuplicate == \A i \in Conns : taken[i] <= 1
NoInvented == \A v \in Values : taken[v] > 0 => v \in 1..accepted
\* Never lost: with its acceptor, in a slot, in a worker's hand, or taken.
NoLoss == \A i \in 1..accepted :
             \/ \E p \in Acceptors : conn[p] = i
             \/ \E s \in Slots : slot[s] = i
             \/ \E c \in Workers : got[c] = i
             \/ taken[i] > 0
EventuallyTaken == \A i \in Conns : (accepted >= i) ~> (taken[i] > 0)

AllServed == (\A p \in Acceptors : pc[p] = "Done") /\ \A i \in Conns : taken[i] > 0
Finished == AllServed /\ UNCHANGED vars
ServerSpec == Init /\ [][Next \/ Finished]_vars
              /\ \A p \in Acceptors : WF_vars(acceptor(p))
              /\ \A c \in Workers : WF_vars(worker(c))

HandoffSpec == INSTANCE Handoff
Refines == HandoffSpec!Spec
=============================================================================
