-------------------------- MODULE DistributedTable --------------------------
(***************************************************************************)
(* Malard & Stewart's distributed hash table (CSE_Hash over IBM LAPI): its *)
(* request protocol between origins and one target process (every target  *)
(* runs the same protocol with every origin, so one target shows it).      *)
(*                                                                         *)
(* An origin initiates inserts without waiting (HASH_Insert returns a      *)
(* handle), up to L of them (the blocking factor), then waits for their    *)
(* replies (HASH_Wait); an origin that hears nothing may send a request    *)
(* again, once (a retry).  At the end it calls HASH_Flush, a barrier that  *)
(* returns only when every request of every origin has been applied.  At   *)
(* the target a request is received into a free buffer (LAPI's header     *)
(* handler); the service thread applies it to the local table, once per   *)
(* request id, and puts the buffer on the completion queue (depth Q); the  *)
(* reply is read out of the buffer and sent, and only then is the buffer   *)
(* released: the paper's cure for a handler that waited for every reply.  *)
(*                                                                         *)
(* Four slips, each a constant, each a verdict TLC must give:              *)
(*  - EarlyRelease: the buffer is released before its reply is read out,   *)
(*    so a new request can land in it and the reply names the wrong one;   *)
(*  - Overwrite: a full completion queue overwrites its oldest entry       *)
(*    instead of waiting, so that reply is never sent;                     *)
(*  - EarlyFlush: flush returns once every request has been delivered,     *)
(*    not applied;                                                         *)
(*  - NoDedup: the target applies a retried request a second time.         *)
(***************************************************************************)
EXTENDS Integers, Sequences, FiniteSets

CONSTANTS Origins, NReqs, L, NBufs, Q, Retries, EarlyRelease, Overwrite, EarlyFlush, NoDedup

ASSUME /\ NReqs \in Nat \ {0} /\ L \in Nat \ {0} /\ NBufs \in Nat \ {0} /\ Q \in Nat \ {0} /\ Retries \in Nat
       /\ EarlyRelease \in BOOLEAN /\ Overwrite \in BOOLEAN /\ EarlyFlush \in BOOLEAN /\ NoDedup \in BOOLEAN

Reqs == Origins \X (1..NReqs)            \* <<o, i>>: origin o's i-th insert
Bufs == 1..NBufs
NoReq == <<>>                            \* an empty buffer's contents

(* --algorithm DistributedTable
variables
    net = <<>>,                           \* requests on their way to the target, in order
    buf = [b \in Bufs |-> NoReq],         \* the target's receive buffers
    stage = [b \in Bufs |-> "free"],      \* free, received (to apply), queued (reply to send)
    cq = <<>>,                            \* the completion queue: buffers whose reply is pending
    seen = {},                            \* request ids the target has applied
    applied = [r \in Reqs |-> 0],         \* how often each insert reached the table
    done = [r \in Reqs |-> FALSE],        \* a reply for it reached its origin
    retries = 0;                          \* requests sent again, at most Retries in all

define
    Unheard(rs) == IF retries < Retries THEN {r \in rs : ~done[r]} ELSE {}
    Finished == \A o \in Origins : pc[o] = "Done"
    \* Safety: each insert applied at most once; a reply (and so HASH_Wait) only after its insert
    \* was applied; HASH_Flush only when every insert of every origin was.
    NoDuplicate == \A r \in Reqs : applied[r] <= 1
    AwaitSound == \A r \in Reqs : done[r] => applied[r] = 1
    FlushSound == \A o \in Origins : pc[o] = "Done" => \A r \in Reqs : applied[r] = 1
end define;

macro Retry(r) begin                              \* nothing heard yet: send it again
    net := Append(net, r); retries := retries + 1;
end macro;

\* ANCHOR: origin
fair process origin \in Origins
variables next = 1, pending = {};                     \* initiated, not yet completed
begin
Initiate:
    while next <= NReqs do
        net := Append(net, <<self, next>>);          \* HASH_Insert: returns a handle, no wait
        pending := pending \cup {<<self, next>>};
        next := next + 1;
        if Cardinality(pending) = L then               \* the blocking factor: L initiated, now wait
Await:                                            \* HASH_Wait on them
            either
                await \A r \in pending : done[r];
                pending := {};
            or
                with r \in Unheard(pending) do Retry(r); end with;
                goto Await;
            end either;
        end if;
    end while;
Flush:                                            \* HASH_Flush: completes the rest; a barrier
    either
        if EarlyFlush then                        \* BUG: every request delivered is not applied
            await (\A o \in Origins : pc[o] \in {"Flush", "Done"}) /\ net = <<>>;
        else
            await \A r \in Reqs : done[r];
        end if;
    or
        with r \in Unheard(pending) do Retry(r); end with;
        goto Flush;
    end either;
end process;
\* ANCHOR_END: origin

fair process receiver = "receiver"                 \* LAPI's header handler, at the target
begin
Receive:
    while ~Finished do
        await Finished \/ (net # <<>> /\ \E b \in Bufs : stage[b] = "free");
        if ~Finished then
            with b \in {x \in Bufs : stage[x] = "free"} do
                buf[b] := Head(net); stage[b] := "received";
            end with;
            net := Tail(net);
        end if;
    end while;
end process;

\* ANCHOR: target
fair process service = "service"                   \* the target's service thread
variables cur = 0;
begin
Apply:
    while ~Finished do
        await Finished \/ \E b \in Bufs : stage[b] = "received";
        if Finished then goto Done; end if;
Claim:
        with b \in {x \in Bufs : stage[x] = "received"} do
            if NoDedup \/ buf[b] \notin seen then
                applied[buf[b]] := applied[buf[b]] + 1;
            end if;
            seen := seen \cup {buf[b]}; cur := b;
        end with;
Enqueue:
        if Finished then                          \* a late duplicate: nobody waits for its reply
            goto Done;
        elsif Len(cq) = Q /\ Overwrite then          \* BUG: the oldest pending reply is dropped
            stage := [stage EXCEPT ![Head(cq)] = "free", ![cur] = "queued"]; buf[Head(cq)] := NoReq;
            cq := Append(Tail(cq), cur);
        else
            await Len(cq) < Q \/ Finished;
            if ~Finished then cq := Append(cq, cur); stage[cur] := "queued"; end if;
        end if;
    end while;
end process;

fair process sender = "sender"                     \* sends each pending reply, oldest first
variables out = 0;                            \* the buffer whose reply it sends
begin
Take:
    while ~Finished do
        await Finished \/ cq # <<>>;
        if Finished then goto Done; end if;
Pop:
        out := Head(cq); cq := Tail(cq);
        if EarlyRelease then                      \* BUG: released before the reply is read out
            stage[out] := "free";
        end if;
Reply:
        if buf[out] # NoReq then done[buf[out]] := TRUE; end if;   \* the reply names what the buffer holds
Release:
        if ~EarlyRelease then stage[out] := "free"; buf[out] := NoReq; end if;
    end while;
end process;
\* ANCHOR_END: target
end algorithm *)
\* BEGIN TRANSLATION (chksum(pcal) = "537122b5" /\ chksum(tla) = "f77f7c4e")
VARIABLES net, buf, stage, cq, seen, applied, done, retries, pc

(* define statement *)
Unheard(rs) == IF retries < Retries THEN {r \in rs : ~done[r]} ELSE {}
Finished == \A o \in Origins : pc[o] = "Done"


NoDuplicate == \A r \in Reqs : applied[r] <= 1
AwaitSound == \A r \in Reqs : done[r] => applied[r] = 1
FlushSound == \A o \in Origins : pc[o] = "Done" => \A r \in Reqs : applied[r] = 1

VARIABLES next, pending, cur, out

vars == << net, buf, stage, cq, seen, applied, done, retries, pc, next, 
           pending, cur, out >>

ProcSet == (Origins) \cup {"receiver"} \cup {"service"} \cup {"sender"}

Init == (* Global variables *)
        /\ net = <<>>
        /\ buf = [b \in Bufs |-> NoReq]
        /\ stage = [b \in Bufs |-> "free"]
        /\ cq = <<>>
        /\ seen = {}
        /\ applied = [r \in Reqs |-> 0]
        /\ done = [r \in Reqs |-> FALSE]
        /\ retries = 0
        (* Process origin *)
        /\ next = [self \in Origins |-> 1]
        /\ pending = [self \in Origins |-> {}]
        (* Process service *)
        /\ cur = 0
        (* Process sender *)
        /\ out = 0
        /\ pc = [self \in ProcSet |-> CASE self \in Origins -> "Initiate"
                                        [] self = "receiver" -> "Receive"
                                        [] self = "service" -> "Apply"
                                        [] self = "sender" -> "Take"]

Initiate(self) == /\ pc[self] = "Initiate"
                  /\ IF next[self] <= NReqs
                        THEN /\ net' = Append(net, <<self, next[self]>>)
                             /\ pending' = [pending EXCEPT ![self] = pending[self] \cup {<<self, next[self]>>}]
                             /\ next' = [next EXCEPT ![self] = next[self] + 1]
                             /\ IF Cardinality(pending'[self]) = L
                                   THEN /\ pc' = [pc EXCEPT ![self] = "Await"]
                                   ELSE /\ pc' = [pc EXCEPT ![self] = "Initiate"]
                        ELSE /\ pc' = [pc EXCEPT ![self] = "Flush"]
                             /\ UNCHANGED << net, next, pending >>
                  /\ UNCHANGED << buf, stage, cq, seen, applied, done, retries, 
                                  cur, out >>

Await(self) == /\ pc[self] = "Await"
               /\ \/ /\ \A r \in pending[self] : done[r]
                     /\ pending' = [pending EXCEPT ![self] = {}]
                     /\ pc' = [pc EXCEPT ![self] = "Initiate"]
                     /\ UNCHANGED <<net, retries>>
                  \/ /\ \E r \in Unheard(pending[self]):
                          /\ net' = Append(net, r)
                          /\ retries' = retries + 1
                     /\ pc' = [pc EXCEPT ![self] = "Await"]
                     /\ UNCHANGED pending
               /\ UNCHANGED << buf, stage, cq, seen, applied, done, next, cur, 
                               out >>

Flush(self) == /\ pc[self] = "Flush"
               /\ \/ /\ IF EarlyFlush
                           THEN /\ (\A o \in Origins : pc[o] \in {"Flush", "Done"}) /\ net = <<>>
                           ELSE /\ \A r \in Reqs : done[r]
                     /\ pc' = [pc EXCEPT ![self] = "Done"]
                     /\ UNCHANGED <<net, retries>>
                  \/ /\ \E r \in Unheard(pending[self]):
                          /\ net' = Append(net, r)
                          /\ retries' = retries + 1
                     /\ pc' = [pc EXCEPT ![self] = "Flush"]
               /\ UNCHANGED << buf, stage, cq, seen, applied, done, next, 
                               pending, cur, out >>

origin(self) == Initiate(self) \/ Await(self) \/ Flush(self)

Receive == /\ pc["receiver"] = "Receive"
           /\ IF ~Finished
                 THEN /\ Finished \/ (net # <<>> /\ \E b \in Bufs : stage[b] = "free")
                      /\ IF ~Finished
                            THEN /\ \E b \in {x \in Bufs : stage[x] = "free"}:
                                      /\ buf' = [buf EXCEPT ![b] = Head(net)]
                                      /\ stage' = [stage EXCEPT ![b] = "received"]
                                 /\ net' = Tail(net)
                            ELSE /\ TRUE
                                 /\ UNCHANGED << net, buf, stage >>
                      /\ pc' = [pc EXCEPT !["receiver"] = "Receive"]
                 ELSE /\ pc' = [pc EXCEPT !["receiver"] = "Done"]
                      /\ UNCHANGED << net, buf, stage >>
           /\ UNCHANGED << cq, seen, applied, done, retries, next, pending, 
                           cur, out >>

receiver == Receive

Apply == /\ pc["service"] = "Apply"
         /\ IF ~Finished
               THEN /\ Finished \/ \E b \in Bufs : stage[b] = "received"
                    /\ IF Finished
                          THEN /\ pc' = [pc EXCEPT !["service"] = "Done"]
                          ELSE /\ pc' = [pc EXCEPT !["service"] = "Claim"]
               ELSE /\ pc' = [pc EXCEPT !["service"] = "Done"]
         /\ UNCHANGED << net, buf, stage, cq, seen, applied, done, retries, 
                         next, pending, cur, out >>

Claim == /\ pc["service"] = "Claim"
         /\ \E b \in {x \in Bufs : stage[x] = "received"}:
              /\ IF NoDedup \/ buf[b] \notin seen
                    THEN /\ applied' = [applied EXCEPT ![buf[b]] = applied[buf[b]] + 1]
                    ELSE /\ TRUE
                         /\ UNCHANGED applied
              /\ seen' = (seen \cup {buf[b]})
              /\ cur' = b
         /\ pc' = [pc EXCEPT !["service"] = "Enqueue"]
         /\ UNCHANGED << net, buf, stage, cq, done, retries, next, pending, 
                         out >>

Enqueue == /\ pc["service"] = "Enqueue"
           /\ IF Finished
                 THEN /\ pc' = [pc EXCEPT !["service"] = "Done"]
                      /\ UNCHANGED << buf, stage, cq >>
                 ELSE /\ IF Len(cq) = Q /\ Overwrite
                            THEN /\ stage' = [stage EXCEPT ![Head(cq)] = "free", ![cur] = "queued"]
                                 /\ buf' = [buf EXCEPT ![Head(cq)] = NoReq]
                                 /\ cq' = Append(Tail(cq), cur)
                            ELSE /\ Len(cq) < Q \/ Finished
                                 /\ IF ~Finished
                                       THEN /\ cq' = Append(cq, cur)
                                            /\ stage' = [stage EXCEPT ![cur] = "queued"]
                                       ELSE /\ TRUE
                                            /\ UNCHANGED << stage, cq >>
                                 /\ buf' = buf
                      /\ pc' = [pc EXCEPT !["service"] = "Apply"]
           /\ UNCHANGED << net, seen, applied, done, retries, next, pending, 
                           cur, out >>

service == Apply \/ Claim \/ Enqueue

Take == /\ pc["sender"] = "Take"
        /\ IF ~Finished
              THEN /\ Finished \/ cq # <<>>
                   /\ IF Finished
                         THEN /\ pc' = [pc EXCEPT !["sender"] = "Done"]
                         ELSE /\ pc' = [pc EXCEPT !["sender"] = "Pop"]
              ELSE /\ pc' = [pc EXCEPT !["sender"] = "Done"]
        /\ UNCHANGED << net, buf, stage, cq, seen, applied, done, retries, 
                        next, pending, cur, out >>

Pop == /\ pc["sender"] = "Pop"
       /\ out' = Head(cq)
       /\ cq' = Tail(cq)
       /\ IF EarlyRelease
             THEN /\ stage' = [stage EXCEPT ![out'] = "free"]
             ELSE /\ TRUE
                  /\ stage' = stage
       /\ pc' = [pc EXCEPT !["sender"] = "Reply"]
       /\ UNCHANGED << net, buf, seen, applied, done, retries, next, pending, 
                       cur >>

Reply == /\ pc["sender"] = "Reply"
         /\ IF buf[out] # NoReq
               THEN /\ done' = [done EXCEPT ![buf[out]] = TRUE]
               ELSE /\ TRUE
                    /\ done' = done
         /\ pc' = [pc EXCEPT !["sender"] = "Release"]
         /\ UNCHANGED << net, buf, stage, cq, seen, applied, retries, next, 
                         pending, cur, out >>

Release == /\ pc["sender"] = "Release"
           /\ IF ~EarlyRelease
                 THEN /\ stage' = [stage EXCEPT ![out] = "free"]
                      /\ buf' = [buf EXCEPT ![out] = NoReq]
                 ELSE /\ TRUE
                      /\ UNCHANGED << buf, stage >>
           /\ pc' = [pc EXCEPT !["sender"] = "Take"]
           /\ UNCHANGED << net, cq, seen, applied, done, retries, next, 
                           pending, cur, out >>

sender == Take \/ Pop \/ Reply \/ Release

(* Allow infinite stuttering to prevent deadlock on termination. *)
Terminating == /\ \A self \in ProcSet: pc[self] = "Done"
               /\ UNCHANGED vars

Next == receiver \/ service \/ sender
           \/ (\E self \in Origins: origin(self))
           \/ Terminating

Spec == /\ Init /\ [][Next]_vars
        /\ \A self \in Origins : WF_vars(origin(self))
        /\ WF_vars(receiver)
        /\ WF_vars(service)
        /\ WF_vars(sender)

Termination == <>(\A self \in ProcSet: pc[self] = "Done")

\* END TRANSLATION 

\* ANCHOR: refines
\* The protocol refines the abstract distributed table: the table is `applied`, an insert is heard once
\* a reply for it reached its origin, an origin has flushed once it is Done.
AbstractTable == INSTANCE AbstractDistributedTable
                     WITH heard <- {r \in Reqs : done[r]}, flushed <- {o \in Origins : pc[o] = "Done"}
\* Its steps only: that no origin waits for ever is CHECK_DEADLOCK's (checking the abstract Spec's
\* liveness too takes TLC 12 s here instead of 6, for no slip the deadlock check misses).
Refines == AbstractTable!Safety
\* ANCHOR_END: refines
=============================================================================
