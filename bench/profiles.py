"""How much of each workload a run does. Sizes stay those the budgets name; only the
number of rounds (and of one-file calls) shrinks for --quick."""


class Profile:
    def __init__(self, name, **counts):
        self.name = name
        # Untimed rounds first (bytecode caches, the trash and ledger dirs).
        self.warmup = counts["warmup"]
        self.rm_calls = counts["rm_calls"]
        self.bigdir_files = counts.get("bigdir_files", 100_000)
        self.bigdir_rounds = counts["bigdir_rounds"]
        self.startup_rounds = counts["startup_rounds"]
        self.loop_files = counts.get("loop_files", 2_000)
        self.loop_rounds = counts["loop_rounds"]
        self.guard_takes = counts["guard_takes"]
        self.guard_rounds = counts["guard_rounds"]
        self.run_rounds = counts["run_rounds"]
        self.report_events = counts.get("report_events", 1_000_000)
        self.trash_items = counts.get("trash_items", 100_000)


FULL = Profile(
    "full",
    warmup=1,
    rm_calls=200,
    bigdir_rounds=3,
    startup_rounds=40,
    loop_rounds=5,
    guard_takes=1000,
    guard_rounds=3,
    run_rounds=30,
)
QUICK = Profile(
    "quick",
    warmup=0,
    rm_calls=25,
    bigdir_rounds=1,
    startup_rounds=10,
    loop_rounds=2,
    guard_takes=200,
    guard_rounds=1,
    run_rounds=8,
    # The two long-history workloads at a tenth of their size: a full-size quick run
    # would spend minutes writing and parsing a million lines.
    report_events=100_000,
    trash_items=20_000,
)
