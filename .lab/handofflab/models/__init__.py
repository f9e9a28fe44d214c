"""The models: the TLA+ specs checked with TLC (`specs`: every catalogued model; `tlc`: TLC's command line and
its output read into verdicts and swimlanes; `tla_values`: TLC's values parsed)."""
