"""The ground floor: where things are (`paths`), how the kit speaks and fails (`console`), how it runs a tool
(`toolchain`), what the kit holds (`catalog`: every handoff and buggy variant, and what each checker should say)
and how a counterexample is drawn (`swimlanes`). It imports nothing from the floors above."""
