"""Rows of the result table: a measured subject, its budget, and how it compares.

A budget is `limit = factor x reference + extra` (a ratio, a speed-up, an allowance or
an absolute limit are all that shape), so every budget is checked against figures of
the same run. A row that could not be measured keeps its place and says why.
"""

from .harness import Stats, WorkloadError

PASS, OVER, ANCHOR, UNAVAILABLE = "pass", "over", "anchor", "unavailable"


def times_text(ratio):
    digits = 0 if ratio >= 100 else 1 if ratio >= 10 else 2
    return f"{ratio:.{digits}f} ×"


def fmt(seconds):
    """A duration with a unit that keeps three significant figures readable."""
    if seconds is None:
        return "—"
    magnitude = abs(seconds)
    if magnitude < 1e-3:
        return f"{seconds * 1e6:.1f} µs"
    if magnitude < 1:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.2f} s"


class Budget:
    def __init__(self, text, reference=None, factor=1.0, extra=0.0, speedup=False):
        self.text = text
        self.reference = reference
        self.factor = factor
        self.extra = extra
        self.speedup = speedup

    def limit(self, reference_median):
        return self.factor * (reference_median or 0.0) + self.extra

    def compare(self, median, reference_median):
        """How the figure stands against the budget's own reference, in its terms."""
        if self.reference is None:
            return None, None
        if self.speedup:
            ratio = reference_median / median
            return ratio, f"{times_text(ratio)} faster than {self.reference}"
        ratio = median / reference_median
        if self.factor == 1.0:
            delta = median - reference_median
            sign = "+" if delta >= 0 else "−"
            return ratio, f"{self.reference} {sign} {fmt(abs(delta))}"
        return ratio, f"{times_text(ratio)} {self.reference}"


def times(reference, factor):
    return Budget(f"≤ {factor:g} × {reference}", reference, factor=factor)


def faster(reference, factor):
    return Budget(f"≥ {factor:g} × faster than {reference}", reference, 1 / factor, speedup=True)


def plus(reference, seconds):
    return Budget(f"≤ {reference} + {fmt(seconds)}", reference, extra=seconds)


def round_by_round(factor):
    """A budget on a row of per-round ratios (RATIO unit): each round's pair ran back to
    back, so a swing of the machine between rounds moves both sides of one ratio."""
    return Budget(f"≤ {factor:g} ×, round by round", extra=factor)


RATIO = "ratio per round"


def paired(numerator, denominator):
    """The per-round ratios of two sample lists from one interleave, or the error."""
    for samples in (numerator, denominator):
        if isinstance(samples, Exception):
            return samples
    return [a / b for a, b in zip(numerator, denominator) if b > 0]


def absolute(seconds, what=""):
    return Budget(f"≤ {fmt(seconds)}{what}", extra=seconds)


class Row:
    def __init__(self, workload, subject, unit, budget=None, anchor_of=None):
        self.workload = workload
        self.subject = subject
        self.unit = unit
        self.budget = budget
        # An anchor row is compared with this subject of its workload.
        self.anchor_of = anchor_of
        self.stats = None
        self.reason = None
        self.status = None
        self.ratio = None
        self.compared = None
        self.limit = None

    @property
    def key(self):
        return f"{self.workload} / {self.subject}"

    def measured(self, samples):
        """Record samples, or the WorkloadError that stopped them."""
        if isinstance(samples, WorkloadError):
            self.reason = str(samples)
        elif not samples:
            self.reason = "no samples were taken"
        else:
            self.stats = Stats(samples)
        return self

    def unavailable(self, reason):
        self.reason = reason
        return self


def fill(table, results, missing):
    """Put each row's measurements in (or why it has none), then settle the table."""
    for row in table:
        if row.subject in missing:
            row.unavailable(missing[row.subject])
        else:
            row.measured(results[row.subject])
    return settle(table)


def settle(rows):
    """Give each row of a workload its comparison, limit and mark."""
    by_subject = {row.subject: row for row in rows}
    for row in rows:
        if row.stats is None:
            row.status = UNAVAILABLE
            row.reason = row.reason or "not measured"
            continue
        if row.budget is None:
            row.status = ANCHOR
            other = by_subject.get(row.anchor_of)
            if other is not None and other.stats is not None and row is not other:
                row.ratio = row.stats.median / other.stats.median
                if row.ratio >= 1:
                    row.compared = f"{times_text(row.ratio)} slower than {other.subject}"
                else:
                    row.compared = f"{times_text(1 / row.ratio)} faster than {other.subject}"
            continue
        reference = None
        if row.budget.reference is not None:
            ref_row = by_subject.get(row.budget.reference)
            if ref_row is None or ref_row.stats is None:
                row.status = UNAVAILABLE
                why = ref_row.reason if ref_row is not None else "not in this workload"
                row.reason = f"the budget's reference {row.budget.reference} is unavailable: {why}"
                continue
            reference = ref_row.stats.median
            row.ratio, row.compared = row.budget.compare(row.stats.median, reference)
        row.limit = row.budget.limit(reference)
        row.status = PASS if row.stats.median <= row.limit else OVER
    return rows
