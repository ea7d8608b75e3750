"""What each verdict's method does, in plain words, with the section of docs/analysis.md that
explains it: the footnote a report prints under a verdict. The technical method (the rule as
a statistician would write it) stays in the document's JSON for whoever wants it."""

from dataclasses import dataclass

DOCS_PAGE = "docs/analysis.md"


@dataclass(frozen=True, slots=True)
class MethodNote:
    plain: str  # one or two sentences a reader without statistics follows
    anchor: str  # the heading of DOCS_PAGE that explains the method


CLIFF_METHOD = MethodNote(
    "The cliff is where throughput drops for good: found by splitting the write into stretches "
    "of steady speed and taking the first lasting drop.",
    "cache-cliff",
)
STEADY_STATE_METHOD = MethodNote(
    "Steady state means five rounds in a row agree: their highest and lowest lie within 20 % "
    "of their average, and a straight line through them rises or falls by less than 10 % of it.",
    "steady-state",
)
KNEE_METHOD = MethodNote(
    "The knee is the queue depth and thread count past which more outstanding I/O buys mostly "
    "waiting: latency grows faster than IOPS (or, with --max-latency-us, the most IOPS within "
    "that latency).",
    "sweep-knee",
)
FILL_METHOD = MethodNote(
    "Each fill level's random-write speed is set against the emptiest level measured: a drive "
    "that needs free space to stay fast slows down as it fills.",
    "fill-level",
)
TRIM_METHOD = MethodNote(
    "Random writes on a region the drive was told is free (discarded) are set against the same "
    "writes on a region full of old data: a drive that uses TRIM is faster on the freed one.",
    "trim",
)
CACHEFIT_METHOD = MethodNote(
    "The same tests run on a region that fits in the drive's write cache and on one beyond it, "
    "direct and through the page cache: a large enough ratio between them is the cache at work.",
    "cachefit",
)
ALIGN_METHOD = MethodNote(
    "Writes at offsets that are multiples of 4 KiB are set against writes 512 B off: a drive "
    "that works in 4 KiB units does much less work for the aligned ones.",
    "alignment",
)
COMPARE_METHOD = MethodNote(
    "A change is called better or worse only when it is larger than the threshold and the "
    "passes of the two runs differ by more than their own scatter explains (Welch's t-test).",
    "compare-runs",
)
WAF_METHOD = MethodNote(
    "Write amplification is what the flash wrote divided by what the host wrote, between two "
    "health samples; it is left out when the drive's counters are too coarse to give it within "
    "5 %.",
    "write-amplification",
)
LIFETIME_METHOD = MethodNote(
    "Days to end of life follow a straight line through the drive's wear readings; a rate needs "
    "the wear to have moved at least three steps of its counter.",
    "lifetime",
)

NOTES = (
    CLIFF_METHOD,
    STEADY_STATE_METHOD,
    KNEE_METHOD,
    FILL_METHOD,
    TRIM_METHOD,
    CACHEFIT_METHOD,
    ALIGN_METHOD,
    COMPARE_METHOD,
    WAF_METHOD,
    LIFETIME_METHOD,
)


def method_note(note: MethodNote) -> str:
    """The footnote: the plain sentence and where the method is explained."""
    return f"{note.plain} Method: {DOCS_PAGE}#{note.anchor}"
