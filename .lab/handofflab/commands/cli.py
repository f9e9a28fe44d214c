"""`./lab`: the kit's one entry point.  Every subcommand is a thin layer over
the module that drives one part of the kit."""
from __future__ import annotations

import sys
from pathlib import Path

import click

from handofflab.ground.console import LabError, bad, console

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


@click.group(context_settings=CONTEXT)
def cli():
    """Handoff Lab: how a server's acceptor hands a connection to a worker,
    and how to prove every connection is served exactly once.

    Start with `./lab tour`; run every test with `./lab test`."""
    from handofflab.commands import studentcopy
    ctx = click.get_current_context()
    copy = studentcopy.student_copy()
    if copy is not None and ctx.invoked_subcommand not in (*studentcopy.STUDENT_COMMANDS, None):
        raise LabError(f"`./lab {ctx.invoked_subcommand}` is not in this student copy (labs: {', '.join(copy['labs'])})",
                       f"here: {studentcopy.student_usage()} — your instructor's full kit has the rest")


@cli.command()
def tour():
    """Install what is missing, then run the kit on the shared buffer: specs, Java checks, grading, notebooks, book."""
    from handofflab.commands import tour as tour_mod
    tour_mod.run()


@cli.command(context_settings={"ignore_unknown_options": True})
@click.option("--full", "tier", flag_value="full", help="every test: the default tier and the heavy full tier")
@click.option("--slice", "tier", flag_value="slice",
              help="only this commit's slice of the full tier (CI runs it after the default tier)")
@click.argument("pytest_args", nargs=-1, type=click.UNPROCESSED)
def test(tier, pytest_args):
    """Run the default tier of tests (JUnit via Maven, the rest via pytest), within 10 minutes on 2 cores;
    counts and time per layer; ends `N passed, N failed`. Reports are kept in .cache/test-report/TIER/."""
    from handofflab.commands import testrun
    sys.exit(testrun.run(tuple(pytest_args), tier or "default"))


@cli.command()
def doctor():
    """List every tool the kit uses, its version here, and the fix for anything missing."""
    from handofflab.commands import doctor as doctor_mod
    doctor_mod.report()


@cli.group()
def check():
    """Model-check the kit: `check specs` (TLC), `check java` (Lincheck, stress, JPF) or `check trace`
    (recorded Java runs validated against their design's spec by TLC); `check variant NAME`: all of one variant's."""
    from handofflab.commands import studentcopy
    sub = click.get_current_context().invoked_subcommand
    if studentcopy.student_copy() is not None and sub not in studentcopy.STUDENT_CHECKS:
        raise LabError(f"`./lab check {sub}` is not in this student copy", f"here: {studentcopy.student_usage()}")


@check.command("trace")
@click.argument("name", required=False)
@click.option("--runs", type=click.IntRange(1, 1000), default=10, show_default=True,
              help="recorded runs per variant (a correct class must pass every one)")
@click.option("--quiet", is_flag=True, help="do not draw the counterexamples")
@click.option("--stress", is_flag=True, help="instead: run NAME's stress check with tracing on, and let TLC judge "
                                             "its first trial (at most --events events of it)")
@click.option("--events", type=click.IntRange(100, 1_000_000), default=None,
              help="with --stress: how much of the trial is recorded [default: tracecheck.STRESS_EVENTS, about "
                   "10 000 handoffs; TLC takes ~20 s per 40 000 events on 2 cores]")
@click.option("--calls-only", is_flag=True, help="record every class's calls alone, as a submission is recorded, "
                                                 "not the steps the kit's classes log themselves")
def check_trace(name, runs, quiet, stress, events, calls_only):
    """Trace validation: record Java runs of every variant the catalog has a trace verdict for (or NAME)
    and let TLC decide whether each run is a behaviour of its design's spec."""
    from handofflab.java import tracecheck
    if stress:
        if not name:
            raise LabError("--stress traces one variant's stress run", "name it: ./lab check trace NAME --stress")
        sys.exit(0 if tracecheck.report_stress(name, events or tracecheck.STRESS_EVENTS, show_traces=not quiet) else 1)
    if not tracecheck.check(name, runs, show_traces=not quiet, calls_only=calls_only):
        sys.exit(1)


@check.command("variant")
@click.argument("name")
@click.option("--quiet", is_flag=True, help="do not draw the counterexamples")
def check_variant(name, quiet):
    """Every claim of one variant in specs/catalog.toml: TLC on its cfg, each Java checker it claims (jcstress and
    JPF where claimed), trace validation where claimed; then the tests that hold the catalog to the code, the
    classes and the book. What to run after adding a twin (the book's "Adding a buggy variant")."""
    from handofflab.commands import variantcheck
    if not variantcheck.check(name, show_traces=not quiet):
        sys.exit(1)


@check.command("rubric")
@click.argument("lab")
@click.option("--record", is_flag=True, help="write the rubric's points into the handout, and the marks the grader "
              "gives into grading/tests/submissions/expected.toml")
def check_rubric(lab, record):
    """A lab after a rubric change: the rubric loads, the handout's table shows its points, and the grader gives the
    starter and every sample the marks expected.toml records (every export runs this first)."""
    from handofflab.commands import rubriccheck
    rubriccheck.check(lab, record)


@check.command("specs")
@click.argument("name", required=False)
@click.option("--tier", type=click.Choice(["ci", "full"]), default="ci", show_default=True,
              help="ci: the small models (seconds); full: also the larger ones")
@click.option("--quiet", is_flag=True, help="do not draw the counterexamples")
@click.option("--translate", is_flag=True, help="first re-translate PlusCal whose TLA+ translation is out of date")
@click.option("--file", "spec_file", type=click.Path(path_type=Path),
              help="instead: TLC on this .tla (a copy an exercise asks for, your lab's spec), with --cfg or its .cfg")
@click.option("--cfg", "cfg_file", type=click.Path(path_type=Path), help="with --file: the model's .cfg")
@click.option("--pin", is_flag=True, help="keep TLC's trace of NAME for the book (book/recorded/NAME.tlc.json), which "
              "every build checks TLC still draws")
def check_specs(name, tier, quiet, translate, spec_file, cfg_file, pin):
    """Run TLC on every model in specs/catalog.toml (or NAME) and compare with the catalog.

    Checks first that each spec's TLA+ translation matches its PlusCal. With --file, TLC on any spec
    and cfg instead: its verdict, states and counterexample, compared with nothing (exit 1 unless it passes)."""
    from handofflab.models import specs
    if spec_file:
        from handofflab.models import tlc
        result = tlc.check_file(spec_file, cfg_file)
        console.print(f"[bold]{spec_file.name}[/]: TLC says [bold]{result.verdict}[/] ({result.distinct} distinct "
                      f"states, {result.seconds:.1f} s)")
        if result.trace and not quiet:
            result.trace.show()
        if result.verdict != "pass":  # as TLC: a violation or a deadlock is a finding (1); an error raised above (2)
            sys.exit(1)
        return
    if cfg_file:
        raise LabError("--cfg goes with --file", "./lab check specs --file MySpec.tla --cfg MySpec.cfg")
    specs.translations(fix=translate)
    if pin:
        from handofflab.commands import studentcopy
        if studentcopy.student_copy() is not None:
            raise LabError("--pin keeps a trace for the kit's book, which a student copy holds built",
                           "run it in the instructor's full kit")
        if not name:
            raise LabError("--pin needs the variant whose trace the book draws", "./lab check specs IfBuffer --pin")
        from handofflab.docs import book
        from handofflab.ground import paths
        specs.check(name, tier, show_traces=not quiet)
        console.print(f"pinned: {paths.shown(book.pin(name))} (read again the sentences of book/src/ beside it)")
        return
    outcomes = specs.check(name, tier, show_traces=not quiet)
    if not all(o.matches for o in outcomes):
        sys.exit(1)


@check.command("java")
@click.argument("name", required=False)
@click.option("--tier", type=click.Choice(["ci", "full"]), default="ci", show_default=True,
              help="ci: 3 s of stress per class; full: 30 s")
@click.option("--jpf", is_flag=True, help="also run JPF (needs JPF_HOME; a visible SKIP otherwise)")
@click.option("--jcstress", is_flag=True,
              help="also run jcstress on the fast handoffs and their twins (java/jcstress: a few minutes a class)")
@click.option("--replay", "replay_file", type=click.Path(path_type=Path),
              help="show a saved counterexample (results/java/*.json or results/specs/*.json)")
@click.option("--quiet", is_flag=True, help="do not draw the counterexamples")
@click.option("--notify-witness", is_flag=True,
              help="run the program on which the JVM and JPF disagree about notify(): on both (needs JPF_HOME)")
@click.option("--record-jpf", "record", metavar="NAME", help="keep JPF's counterexample on NAME for the book (book/recorded/)")
@click.option("--record-jcstress", "record_jcstress", metavar="NAME",
              help="keep jcstress's counterexample on NAME (a twin) for the book (book/recorded/)")
def check_java(name, tier, jpf, jcstress, replay_file, quiet, notify_witness, record, record_jcstress):
    """Run Lincheck and the stress watchdog (and JPF with --jpf, jcstress with --jcstress) on every Java handoff in
    the catalog, or on NAME: one variant (NotifyBuffer) or one design's variants (SharedBuffer)."""
    from handofflab.java import javacheck
    if replay_file:
        javacheck.replay(replay_file)
        return
    if record or record_jcstress:
        console.print(f"recorded: {javacheck.record(record or record_jcstress, 'jpf' if record else 'jcstress')}")
        return
    if notify_witness:
        jvm, jpf_verdict = javacheck.notify_witness()
        console.print(f"JVM: {jvm}\nJPF: {jpf_verdict['verdict']}: {jpf_verdict['detail']}")
        return
    outcomes = javacheck.check(name, tier, jpf, show_traces=not quiet, jcstress=jcstress)
    if not all(o.matches for o in outcomes):
        sys.exit(1)


@cli.command()
@click.argument("name", required=False)
@click.argument("notebook", required=False)
@click.option("--port", default=8888, show_default=True, help="for open: the localhost port")
def notebooks(name, notebook, port):
    """Execute the notebooks (notebooks/*.py, jupytext) with a real kernel and render them for the book (NAME: one
    of them); or `open [NOTEBOOK]`: serve them in JupyterLab on localhost, to change and run (installed on first use)."""
    from handofflab.docs import notebooks as nb
    if name == "open":
        sys.exit(nb.open_lab(notebook, port))
    if notebook:
        raise click.UsageError(f"one notebook at a time: ./lab notebooks {name}  (or ./lab notebooks open {notebook})")
    nb.run_all(name)


@cli.command()
@click.argument("action", type=click.Choice(["build", "serve", "screenshots", "accessibility"]), default="build")
@click.option("--refresh", is_flag=True, help="re-run the checkers and notebooks the book includes")
@click.option("--port", default=3000, show_default=True, help="for serve: the localhost port")
def book(action, refresh, port):
    """Build the book into book/build/ (offline), serve it on localhost, or look at its pages in
    headless Chromium (screenshots in results/book/screenshots/, with math, code and plots checked; accessibility:
    axe-core on every page, failing on a serious or critical violation)."""
    from handofflab.docs import book as book_mod
    book_mod.build(refresh)
    if action == "serve":
        book_mod.serve(port)
    elif action == "screenshots":
        book_mod.screenshots()
    elif action == "accessibility":
        book_mod.check_accessibility()


class _ServeCommand(click.Command):
    """`serve`, whose --help ends with the catalog's designs (read only when help is shown)."""

    def format_epilog(self, ctx, formatter):
        from handofflab.benches import servers
        self.epilog = servers.design_help()
        super().format_epilog(ctx, formatter)


@cli.command(cls=_ServeCommand, context_settings={"ignore_unknown_options": True})
@click.argument("design")
@click.option("--port", type=int, default=8080, show_default=True, help="TCP port; 0 picks any free one")
@click.option("--workers", type=int, default=50, show_default=True, help="worker threads (pre-threaded designs, thread pool)")
@click.option("--slots", type=int, default=101, show_default=True, help="SharedBuffer slots / ParallelHashTable size (a prime)")
@click.option("--delay-ms", type=int, default=25, show_default=True,
              help="simulated work t_r per request, unless the client asks for its own")
@click.option("--request-timeout-ms", type=int, default=5000, show_default=True,
              help="how long a connection may take to send its request")
@click.option("--handoff", help="pre-threaded designs: use this handoff class instead (e.g. NotifyBuffer)")
@click.option("--bind", default="127.0.0.1", show_default=True, help="the address to listen on")
@click.option("--backlog", type=int, default=4096, show_default=True,
              help="connections the kernel queues before accept (capped by net.core.somaxconn)")
@click.option("--grace-ms", type=int, help="at Ctrl-C, how long to finish what was accepted (default: as long as "
                                             "the longest request may take, 60 s + 2 x the request timeout)")
@click.option("--trace", is_flag=True, help="record every put and take of the handoff (pre-threaded designs); at "
                                            "Ctrl-C, TLC checks the run against the design's trace spec")
def serve(design, port, workers, slots, delay_ms, request_timeout_ms, handoff, bind, backlog, grace_ms, trace):
    """Run one server DESIGN in the foreground until Ctrl-C, then serve what it accepted and print its counts."""
    from handofflab.benches import servers
    options = ["--port", str(port), "--workers", str(workers), "--slots", str(slots), "--delay-ms", str(delay_ms),
               "--request-timeout-ms", str(request_timeout_ms), "--bind", bind, "--backlog", str(backlog)]
    if grace_ms is not None:
        options += ["--grace-ms", str(grace_ms)]
    if handoff:
        options += ["--handoff", handoff]
    sys.exit(servers.serve(design, options, trace, handoff, workers, slots))


@cli.command(context_settings={"ignore_unknown_options": True})
@click.argument("host")
@click.argument("port")
@click.argument("nchildren")
@click.argument("nrequests")
@click.argument("millis", required=False)
@click.option("--timeout-ms", help="how long one request may take before it counts as lost (default 60000)")
@click.option("--silent", help="first open this many connections that send nothing, held until the last reply (a "
                               "pool's workers wait on them until the server's request timeout)")
@click.option("--idle-ms", help="each client waits this long between its connect and its request (a burst of "
                                "clients that connect at once holds every connection in the server and its listen queue)")
@click.option("--json", "json_file", type=click.Path(), help="also write the report as JSON")
@click.option("--quiet", is_flag=True, help="no progress lines")
def client(host, port, nchildren, nrequests, millis, timeout_ms, silent, idle_ms, json_file, quiet):
    """The paper's load client: NCHILDREN children each send NREQUESTS requests (one connection each),
    asking for MILLIS ms of work; reports time, throughput, latency percentiles, and lost or duplicated ids."""
    from handofflab.benches import servers
    sys.exit(servers.client(host, port, nchildren, nrequests, millis, timeout_ms, silent, idle_ms, json_file, quiet))


@cli.group()
def bench():
    """Benchmarks (measurements, never tests): `bench servers` reproduces the paper's tables on loopback;
    `bench handoffs` races the handoffs against the JDK's and JCTools' queues with JMH; `bench calendar`
    runs McBride & Ferrell's store experiment against SQLite; `bench dht` Malard & Stewart's micro-benchmarks."""


@bench.command("servers")
@click.option("--quick", "mode", flag_value="quick", default=True, help="t_r = 10 ms, a few minutes (default)")
@click.option("--full", "mode", flag_value="full", help="t_r = 25 and 50 ms, the full sweeps (tens of minutes)")
@click.option("--paper", "mode", flag_value="paper",
              help="Table 1 at the paper's own t_r = 250 ms, no sweeps (about 15 s a run: 10-15 minutes)")
@click.option("--design", "designs", multiple=True, help="only these designs (repeatable); default: all")
@click.option("--reps", type=int, help="repetitions per point (default 5)")
def bench_servers(mode, designs, reps):
    """Every server design under the paper's load (140 clients x 20 requests), worker and slot sweeps,
    medians and spread, Little's-law bounds and efficiencies, CSV and plots in results/bench/servers/."""
    from handofflab.benches import bench_servers as bench_mod
    _exit_if_partial(bench_mod.run(mode, list(designs) or None, reps))


@bench.command("handoffs")
@click.option("--quick", "mode", flag_value="quick", default=True, help="1, 2 and 4 workers, 1 fork, 3 x 1 s (default)")
@click.option("--full", "mode", flag_value="full", help="1..max(8, cores) workers, 2 forks, 5 x 2 s")
@click.option("--impl", "impls", multiple=True, help="only these (repeatable); ArrayBlockingQueue always runs")
@click.option("--workers", help="worker counts, e.g. 1,2,4,8 (default: the mode's)")
def bench_handoffs(mode, impls, workers):
    """JMH: each kit handoff against ArrayBlockingQueue, LinkedBlockingQueue, LinkedTransferQueue,
    SynchronousQueue and JCTools' Spmc/MpmcArrayQueue; one acceptor, 1..N workers; throughput and
    the ratio to ArrayBlockingQueue from the same run; then, in the same run, what sleeping costs and saves
    (put-to-take latency with paced arrivals, idle workers' CPU); CSV and plots in results/bench/handoffs/."""
    from handofflab.benches import bench_handoffs as mod
    try:
        ns = [int(x) for x in workers.split(",")] if workers else None
    except ValueError:
        raise LabError(f"--workers takes numbers separated by commas, got '{workers}'", "e.g. --workers 1,2,4")
    _exit_if_partial(mod.run(mode, list(impls) or None, ns))


@bench.command("calendar")
@click.option("--quick", "mode", flag_value="quick", default=True,
              help="n = 512 events and 128 users, 5 runs per point (default; 4 minutes on 2 quiet cores, measured): "
                   "too few tasks to test the paper's pool-vs-spawn claim, which the summary says")
@click.option("--full", "mode", flag_value="full",
              help="n = 256, 1024 and 4096 events and 128 and 512 users, 5 runs per point, on 1, 2, 4, ... cores and "
                   "all, at most 4, 16, 64 and 256 threads at once (tens of minutes)")
@click.option("--reps", type=int, help="runs per point (default 5)")
@click.option("--n", "ns", help="events per run, e.g. 256,1024 (default: the mode's); the database's users, at most the largest")
@click.option("--threads", "limits", help="X, the threads running at once, e.g. 4,16,64 (default: 64, the paper's; "
                                            "--full sweeps 4 to 256, as the paper's Fig. 3)")
def bench_calendar(mode, reps, ns, limits):
    """McBride & Ferrell's experiment: create, edit and delete n events as tasks, on the kit's store with
    each list kind and on SQLite in the same run; a thread pool, a thread per task, virtual threads; then
    the whole database (users, groups, calendars, events) against the same tables in SQLite.
    Ratios to SQLite, the paper's claims tested; CSV and plots in results/bench/calendar/."""
    from handofflab.benches import bench_calendar as mod
    try:
        counts = [int(x) for x in ns.split(",")] if ns else None
    except ValueError:
        raise LabError(f"--n takes numbers separated by commas, got '{ns}'", "e.g. --n 256,1024")
    try:
        xs = [int(x) for x in limits.split(",")] if limits else None
    except ValueError:
        raise LabError(f"--threads takes numbers separated by commas, got '{limits}'", "e.g. --threads 4,16,64")
    _exit_if_partial(mod.run(mode, reps, counts, xs))


@bench.command("dht")
@click.option("--quick", "mode", flag_value="quick", default=True,
              help="3 000 values per process, 3 runs per point, 40 randomised runs, Table 1's 20 matrices (default; "
                   "about 4½ minutes on 2 quiet cores, over 10 beside other work; each point is kept as it finishes)")
@click.option("--full", "mode", flag_value="full",
              help="20 000 values, 5 runs per point, 210 randomised runs, q = 128")
@click.option("--reps", type=int, help="runs per point (default: the mode's)")
@click.option("--matrices", "matrices", type=click.Path(file_okay=False, exists=True, path_type=Path),
              help="a folder of MatrixMarket files (NAME.mtx, Table 1's names) to scatter instead of the kit's look-alikes")
@click.option("--latency", "latency", metavar="MS[,MS...]",
              help="the latency study instead: Table 1's scatter, N-1 over p and the patterns on loopback and through "
                   "Toxiproxy at each latency (ms each way; 0: the proxy's own cost), in results/bench/dht-latency/ "
                   "(Toxiproxy is built from the Go module proxy on first use; needs Go)")
@click.option("--jitter", type=int, default=0, show_default=True, metavar="MS",
              help="with --latency: each delay varies by up to this many ms either way")
def bench_dht(mode, reps, matrices, latency, jitter):
    """Malard & Stewart's micro-benchmarks on the kit's distributed table, one JVM per process on
    loopback: 1-N, N-N and N-1 at queue depth q and 0 against a raw one-sided put and a Hazelcast cluster
    from the same run, then the randomised study of L with Kruskal-Wallis tests, then the matrix scatter
    of their Table 1 against blocking send/receive; CSV and plots in results/bench/dht/. With --latency,
    the paper's scatter and processor axis across a network with latency (Toxiproxy), in results/bench/dht-latency/."""
    from handofflab.benches import bench_dht as mod
    try:
        latencies = [int(x) for x in latency.split(",")] if latency is not None else None
    except ValueError:
        raise LabError(f"--latency takes milliseconds separated by commas, got '{latency}'", "e.g. --latency 0,1,5")
    if jitter and latencies is None:
        raise LabError("--jitter needs --latency", "e.g. --latency 5 --jitter 1")
    mod.run(mode, reps, matrices, latencies, jitter)


@bench.command("heap")
@click.option("--design", default="SharedBuffer", show_default=True, help="the server design to run")
@click.option("--rounds", default=8, show_default=True, help="rounds of load; the first is the baseline")
@click.option("--requests", "per_round", default=50_000, show_default=True, help="requests per round")
def bench_heap(design, rounds, per_round):
    """A long run's live heap, read by a class histogram (jcmd) after each round of load: it must
    stop growing once the server's window of remembered ids is full. CSV, summary and a plot in
    results/bench/heap/; exit 1 if the kept ids pass their documented bound."""
    from handofflab.benches import bench_heap as mod
    from handofflab.ground import catalog
    catalog.load().server(design)  # an unknown design is named before a JVM starts
    _exit_if_partial(mod.run(design, rounds, per_round))


def _exit_if_partial(out: Path) -> None:
    """A benchmark with failed points keeps what it measured, and says so with exit code 1."""
    if (out / "summary.md").read_text().startswith("**PARTIAL"):
        bad(f"some points failed: {out / 'summary.md'} is marked PARTIAL")
        sys.exit(1)


@cli.command()
@click.argument("lab")
@click.argument("submission", type=click.Path(path_type=Path))
@click.option("--out", "out_dir", type=click.Path(path_type=Path), help="where to write results.json and report.md")
@click.option("--reruns", type=click.IntRange(2, 1000),
              help="grade it this many times and report whether every run gave the same marks (flakiness)")
@click.option("--allow-weak-isolation", is_flag=True,
              help="grade even where this host cannot isolate submitted code (not root, no namespaces); "
                   "every report then says so")
@click.option("--format", "results_format", type=click.Choice(["gradescope", "prairielearn"]), default="gradescope",
              show_default=True, help="results.json as Gradescope reads it, or as PrairieLearn's external grader writes it")
def grade(lab, submission, out_dir, reruns, allow_weak_isolation, results_format):
    """Grade SUBMISSION (a folder, a .zip, or the one file the lab asks for) for LAB; writes
    results.json (Gradescope's, or PrairieLearn's with --format) and report.md. Exit 0 at full marks, 1 below them, 3 when the grader
    itself failed, 4 when a test could not be graded because the machine was too busy (results.json
    says which; grade again)."""
    from handofflab.commands import grade as grade_mod
    sys.exit(grade_mod.grade(lab, submission, out_dir, reruns, allow_weak_isolation, results_format))


@cli.command("check-lab")
@click.argument("lab")
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--watch", is_flag=True, help="check again each time a file in PATH changes (Ctrl-C stops)")
@click.option("--full", is_flag=True, help="the grader's durations (a longer stress run where the rubric asks for one)")
@click.option("--allow-weak-isolation", is_flag=True, help="check even where this host cannot isolate the code")
def check_lab(lab, path, watch, full, allow_weak_isolation):
    """Check PATH (a folder, or the one file LAB asks for) with every test of the lab's rubric that a
    student may run: the public tests, Lincheck, the stress watchdog, trace validation, TLC, with the
    grader's own code. A failing check prints its counterexample. The rubric says why any other test is
    left to your instructor. Exit 0 when all pass, 1 when one fails, 4 when one could not be judged."""
    from handofflab.commands import student
    sys.exit(student.check_lab(lab, path, watch, allow_weak_isolation, full))


@cli.command("grade-batch")
@click.argument("lab")
@click.argument("folder", type=click.Path(path_type=Path))
@click.option("--out", "out_dir", type=click.Path(path_type=Path), help="where to write the gradebook and reports")
@click.option("--jobs", type=click.IntRange(1, 64), help="submissions graded at once (default: one per two cores, at most 4, as memory allows)")
@click.option("--allow-weak-isolation", is_flag=True,
              help="grade even where this host cannot isolate submitted code; every report then says so")
def grade_batch(lab, folder, out_dir, jobs, allow_weak_isolation):
    """Grade every subfolder or .zip in FOLDER for LAB, in parallel; writes gradebook.csv and one
    results.json + report.md per submission."""
    import grader
    grader.grade_batch(lab, folder, out_dir, jobs, allow_weak_isolation)


@cli.command("export-gradescope")
@click.argument("lab")
@click.option("--allow-weak-isolation", is_flag=True,
              help="let the autograder grade where its container cannot isolate submitted code (said in every result)")
def export_gradescope(lab, allow_weak_isolation):
    """Write an autograder zip (setup.sh, run_autograder and the kit) that runs this grader on Gradescope."""
    from handofflab.commands import gradescope
    gradescope.export(lab, allow_weak_isolation)


@cli.command("export-prairielearn")
@click.argument("lab")
@click.option("--allow-weak-isolation", is_flag=True,
              help="let the grader image grade where its container cannot isolate submitted code (said in every result)")
@click.option("--image", "image_name", help="the grader image's name in a registry the course can push to "
              "(e.g. myaccount/handofflab-grader-buffer:term1)")
def export_prairielearn(lab, allow_weak_isolation, image_name):
    """Write a PrairieLearn question (info.json, question.html, the starter) and its grader image's recipe
    (Dockerfile, entrypoint, the kit) that runs this grader as PrairieLearn's external grader."""
    from handofflab.commands import prairielearn
    prairielearn.export(lab, allow_weak_isolation, image_name=image_name)


@cli.command("verify-verdicts")
@click.option("--runs", type=click.IntRange(1, 1000), default=20, show_default=True, help="runs per claim")
@click.option("--busy", type=click.IntRange(0, 64), default=2, show_default=True,
              help="busy loops competing for the cores meanwhile")
@click.option("--only", help="only the claims of one variant, checker, lab or sample (LAB/SAMPLE: one lab's sample)")
@click.option("--rotate", type=click.IntRange(1, 1000),
              help="only this many claims, chosen by --seed (CI: a few each commit, every claim over many commits)")
@click.option("--seed", help="with --rotate: what chooses the claims [default: the commit, git rev-parse HEAD]")
def verify_verdicts(runs, busy, only, rotate, seed):
    """Rerun every catalogued Java verdict and grade every sample submission RUNS times beside BUSY
    busy loops; print how many runs agreed with each claim (exit 1 unless all did)."""
    from handofflab.commands import verify
    sys.exit(verify.run(runs, busy, only, rotate, seed))


@cli.command()
@click.argument("lab")
@click.argument("number", type=int, required=False)
@click.option("--reset", is_flag=True, help="start again from the first hint")
def hint(lab, number, reset):
    """Show LAB's hints one at a time: the next one not yet shown, or hint NUMBER."""
    from handofflab.commands import student
    student.hint(lab, number, reset)


@cli.command("release")
@click.argument("target", metavar="DIR", type=click.Path(path_type=Path))
@click.option("--lab", "labs", multiple=True, help="a lab to put in the copy (repeat it for more)")
@click.option("--reveal", "reveal", multiple=True, help="a lab already graded, whose answers the copy may ship "
              "(every other lab's are withheld)")
def release_cmd(target, labs, reveal):
    """Make a student copy of the kit in DIR: the labs' handouts, starters and public tests, the Java
    they compile against and the book, without any lab's answers (but the revealed labs'), the hidden tests or the
    samples."""
    from handofflab.commands import release
    release.release(target, list(labs), reveal=tuple(reveal))


@cli.command("grade-isolation")
def grade_isolation():
    """Print the isolation this host gives submitted code: `full`, or why not (the autograder's setup reads it)."""
    from grader import jail
    print(jail.ISOLATION)


def main():
    from handofflab.commands import studentcopy
    if studentcopy.student_copy() is not None:  # a student copy's help lists the student's commands only
        for name, command in cli.commands.items():
            command.hidden = name not in studentcopy.STUDENT_COMMANDS
        for name, command in check.commands.items():
            command.hidden = name not in studentcopy.STUDENT_CHECKS
        for option in check.commands["specs"].params:  # --pin keeps a trace for the kit's book, which a copy
            if option.name == "pin":                   # holds built, without its sources
                option.hidden = True
        cli.help = ("Handoff Lab, student copy: check your lab with `./lab check-lab LAB PATH`; `./lab hint LAB`; "
                    "run a model of the book with `./lab check specs NAME`.")
        check.help = ("Model-check with TLC: `./lab check specs NAME` (a model of the book, by its name in "
                      "specs/catalog.toml) or `./lab check specs --file SPEC.tla` (a spec of your own). "
                      "Your lab's Java checkers run through `./lab check-lab LAB PATH`.")
    try:
        cli(standalone_mode=False, prog_name="./lab")  # usage lines name the command people type
    except LabError as e:
        bad(f"[bold]{e.problem}[/]")
        if e.fix:
            console.print(f"  [bold]Fix:[/] {e.fix}")
        sys.exit(e.exit_code)
    except click.exceptions.Abort:
        bad("aborted")
        sys.exit(130)
    except click.ClickException as e:
        e.show()
        sys.exit(e.exit_code)
    except SystemExit:
        raise
