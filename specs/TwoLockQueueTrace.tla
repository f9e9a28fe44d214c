------------------------- MODULE TwoLockQueueTrace -------------------------
(* The two-lock queue seen from outside (TwoLockQueue.tla): a linked list with no bound, so a *)
(* put never waits, and a take removes the OLDEST connection (the node after the dummy).      *)
(* HandoffTrace says how a recorded run is read against it.                                   *)
EXTENDS TraceLog
VARIABLES pos, buf, call
INSTANCE HandoffTrace WITH Fifo <- TRUE, Bound <- 0
=============================================================================
