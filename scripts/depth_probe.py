#!/usr/bin/env python3
"""How deep brains search in the same positions in the same time.

  depth_probe.py [--ply N] [--count K] [--turn-ms MS] MATCH_DIR... -- BRAIN...

Takes the position after ply N (20) of the games `wuzi-match` saved in MATCH_DIR (one
game of each pair, whose twin starts from the same opening with colours swapped; only
games that went on at least four plies past N, so the position is not already decided),
gives each BRAIN that position through the protocol with MS (1000) per move, under the
game's rule, a fresh process each time, and reads the deepest `depth D` of its MESSAGE
lines (Wuzi sends `MESSAGE depth D-S ...` after every iteration). Prints one line per
position and, per brain, the median and mean over the positions every brain answered
with a depth. A BRAIN is a shell word list: `"env WUZI_CONFIG=x.conf target/release/
pbrain-wuzi"` runs a build with another configuration.

Depth at equal time is what a change to the search's cost per node moves; a match still
decides whether it plays better. The clock is real, so a busy machine lowers every
figure: run nothing else meanwhile.
"""

import argparse
import os
import re
import shlex
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from brain_driver import Brain, board_lines, read_sgf  # noqa: E402

DEPTH = re.compile(r"^MESSAGE depth (\d+)")


def positions(dirs, ply, count):
    """(name, rule, size, moves) of up to `count` positions, one per pair of games."""
    out = []
    for folder in dirs:
        names = sorted(n for n in os.listdir(folder) if n.endswith(".sgf"))
        for name in names[::2]:
            rule, size, moves, _ = read_sgf(os.path.join(folder, name))
            if len(moves) >= ply + 4:
                out.append((f"{os.path.basename(os.path.normpath(folder))}/{name[:-4]}",
                            rule, size, moves[:ply]))
            if len(out) == count:
                return out
    return out


def deepest(cmd, rule, size, moves, turn_ms):
    """The deepest iteration the brain reports before it moves; None if it reports none."""
    brain = Brain(cmd, merge_stderr=False)
    try:
        brain.send(f"START {size}")
        if brain.reply(10) != "OK":
            return None
        for info in (f"rule {rule}", f"timeout_turn {turn_ms}", "timeout_match 0"):
            brain.send(f"INFO {info}")
        brain.send("BOARD")
        for line in board_lines(moves):
            brain.send(line)
        brain.send("DONE")
        brain.reply(turn_ms / 1000 + 5)
        brain.send("END")
        brain.wait_exit(2)
    finally:
        brain.kill()
    depths = [int(m.group(1)) for m in map(DEPTH.match, brain.chatter) if m]
    return max(depths, default=None)


def main():
    # The brains follow `--` (each may hold options of its own); argparse reads the rest,
    # so `--help` works with or without them.
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 usage="%(prog)s [options] MATCH_DIR... -- BRAIN...")
    ap.add_argument("--ply", type=int, default=20)
    ap.add_argument("--count", type=int, default=12)
    ap.add_argument("--turn-ms", type=int, default=1000)
    ap.add_argument("dirs", nargs="+")
    args = ap.parse_args(argv[:cut])
    brains = argv[cut + 1:]
    if not brains:
        sys.exit("depth_probe.py: no BRAIN after --")
    rows = []
    for name, rule, size, moves in positions(args.dirs, args.ply, args.count):
        row = [deepest(shlex.split(b), rule, size, moves, args.turn_ms) for b in brains]
        rows.append(row)
        print(name, f"rule {rule}", *("-" if d is None else d for d in row), flush=True)
    complete = [r for r in rows if None not in r]
    print(f"{len(complete)} of {len(rows)} positions answered with a depth by every brain")
    for i, b in enumerate(brains):
        depths = [r[i] for r in complete]
        if depths:
            print(f"{b}: median {statistics.median(depths)}, "
                  f"mean {statistics.fmean(depths):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
