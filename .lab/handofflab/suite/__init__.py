"""The test suite's tiers: the default tier and the full one (`tiers`: each heavy test says why and how long;
`tierplugin`: pytest's --tier, --with-full and --list-full); and its quiet turns (`turns`: a judgement the suite's
own load left unmade is made again with the suite's other tests waiting)."""
