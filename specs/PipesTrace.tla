----------------------------- MODULE PipesTrace -----------------------------
(* The pipes seen from outside (Pipes.tla): a worker takes whichever connection was written  *)
(* into its own pipe, so ANY connection may come out next; the acceptor writes only to a free *)
(* worker, into a pipe of one, so at most Capacity (the workers) are held at once: a lost one *)
(* still counts, as nothing took it.  HandoffTrace says how a recorded run is read against it. *)
EXTENDS TraceLog
VARIABLES pos, buf, call
INSTANCE HandoffTrace WITH Fifo <- FALSE, Bound <- Capacity
=============================================================================
