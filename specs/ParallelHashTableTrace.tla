---------------------- MODULE ParallelHashTableTrace ----------------------
(* The parallel hash table seen from outside (ParallelHashTable.tla): Capacity slots, so a put *)
(* waits while every slot is full, and a take swaps ANY full slot with null (it probes from a  *)
(* random start), removing that connection and no other: never one twice.                      *)
(* HandoffTrace says how a recorded run is read against it.                                    *)
EXTENDS TraceLog
VARIABLES pos, buf, call
INSTANCE HandoffTrace WITH Fifo <- FALSE, Bound <- Capacity
=============================================================================
