"""The benchmarks (`bench_*`: the papers' experiments and the handoffs' race, measured, never tests) and the
processes they run: the TCP servers and load client (`servers`), the DHT's processes (`dht`), Toxiproxy's
latency (`toxiproxy`), and the Java measurement programs the notebooks run (`measure`)."""
