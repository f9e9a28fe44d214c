"""The Java side: the build (`javabuild`), the Java checkers on the catalogued classes (`javacheck`: Lincheck,
stress, JPF, jcstress, the probes), and trace validation (`tracecheck`: real runs' logs judged by TLC against the
spec, so it stands on the models below)."""
