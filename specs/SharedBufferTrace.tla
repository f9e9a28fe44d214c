------------------------- MODULE SharedBufferTrace -------------------------
(* The shared buffer seen from outside (SharedBuffer.tla: putAt, takeAt): a ring of Capacity *)
(* slots, so a put waits while it is full, and a take removes the OLDEST connection.         *)
(* HandoffTrace says how a recorded run is read against it.                                  *)
EXTENDS TraceLog
VARIABLES pos, buf, call
INSTANCE HandoffTrace WITH Fifo <- TRUE, Bound <- Capacity
=============================================================================
