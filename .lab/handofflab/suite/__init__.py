"""The test suite's tiers: the default tier and the full one (`tiers`: each heavy test says why and how long;
`tierplugin`: pytest's --tier, --with-full and --list-full)."""
