#!/usr/bin/env python3
"""Tactical positions from match records, and the brain's moves in them judged by proof.

The shared puzzle suite is small and its held-out twin is unseen, so a fix tuned on the
29 public puzzles proves little. This tool makes more positions of the same two kinds from
any games `wuzi-match` saved, and judges a brain's move in each by the threat-space
search's own sound verdicts (`pbrain-wuzi solve`), not by a list of answers:

  puzzle_probe.py extract [--nodes N] [--per-game K] MATCH_DIR... > positions.tsv
      Walks each decided game back from its end and keeps the positions where `solve`
      finds a forced win for the side to move (`win`) or a forced win for the opponent
      that a move may still stop (`defend`), leaving out the trivial ones (a five to make,
      a four to block).
  puzzle_probe.py probe [--turn-ms MS] [--nodes N] [--solver PBRAIN] [--fresh] [--verbose]
                        positions.tsv BRAIN...
      Plays each position through the protocol at MS per move and judges the reply.
      One brain process plays them all, in file order with START between them, as a
      manager runs a brain: its hash table then carries over, warm from the positions
      before (the plies of one game come in a row), and a verdict may depend on them.
      --fresh starts a new brain for each position instead; --verbose shows the
      protocol lines, the brain's MESSAGE lines among them.
        win:    ok when `solve` proves the opponent lost after it; MISS when it cannot
                (the reply may still win, beyond the proof's reach); FAIL when the
                opponent then has a proven win.
        defend: FAIL when the opponent still has a proven win after the reply; ok when
                not; LOST (not counted) when no move of the defence set holds either.

Every FAIL is a proven mistake; an ok is only as good as the threat search's reach. The
positions file is tab-separated like shared/positions/puzzles.txt (id, rule, size, kind,
moves, answers, note), where answers holds the solver's own line or defence set: a hint,
not an answer key.
"""

import argparse
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from brain_driver import (  # noqa: E402
    Brain, board_lines, five_from, parse_move, parse_pos, pos_name, read_sgf)


def pos_string(moves):
    return "".join(pos_name(x, y) for x, y in moves)


def solve(solver, rule, size, moves, nodes, win_only=False):
    """`solve`'s verdict line split into words, e.g. ['defend', 'h8', 'i9'] or ['none']."""
    cmd = [solver, "solve", "--rule", str(rule), "--size", str(size), "--nodes", str(nodes)]
    if win_only:
        cmd.append("--win-only")
    out = subprocess.run(cmd + [pos_string(moves)], capture_output=True, text=True).stdout
    return out.splitlines()[0].split() if out else ["error"]


def has_five_point(moves, colour, size):
    """Whether `colour` has an empty cell that makes five or more (a screen for trivial
    positions, so the exact-five rules need not be modelled)."""
    stones = {m: i % 2 for i, m in enumerate(moves)}
    for x in range(size):
        for y in range(size):
            if (x, y) not in stones:
                stones[(x, y)] = colour
                five = five_from(stones, x, y, size)
                del stones[(x, y)]
                if five:
                    return True
    return False


def cmd_extract(args):
    print("# id\trule\tsize\tkind\tmoves\tsolver\tnote")
    games_seen, positions_seen = set(), set()
    for folder in args.dirs:
        for name in sorted(os.listdir(folder)):
            if not name.endswith(".sgf"):
                continue
            rule, size, moves, result = read_sgf(os.path.join(folder, name))
            if result is None or tuple(moves) in games_seen:
                continue  # a draw, or a game replayed move for move (colours swapped)
            games_seen.add(tuple(moves))
            found, quiet = [], 0
            # Back from the end: the last positions are won outright, the interesting ones
            # lie where the proof first appears; stop after a few with nothing to prove.
            for ply in range(len(moves) - 1, args.min_stones - 1, -1):
                position = moves[:ply]
                to_move, other = ply % 2, 1 - ply % 2
                if has_five_point(position, to_move, size) or has_five_point(position, other, size):
                    continue
                verdict = solve(args.solver, rule, size, position, args.nodes)
                if verdict[0] not in ("win", "defend"):
                    quiet += 1
                    if quiet >= args.quiet_stop:
                        break
                    continue
                quiet = 0
                if verdict[0] == "win" and len(verdict) <= 4:
                    continue  # a four, its block, a five: nothing to find
                if verdict[0] == "defend" and len(verdict) - 1 > args.max_defences:
                    continue  # most moves may hold: no puzzle
                found.append((ply, verdict))
            game = os.path.basename(os.path.normpath(folder))
            for ply, verdict in found[-args.per_game:]:  # the earliest: the hardest
                key = (rule, size, tuple(moves[:ply]))
                if key in positions_seen:
                    continue
                positions_seen.add(key)
                print(f"{game}-{name[:-4]}-ply{ply}\t{rule}\t{size}\t{verdict[0]}\t"
                      f"{pos_string(moves[:ply])}\t{','.join(verdict[1:])}\t"
                      f"game won by {result}", flush=True)
    return 0


def cmd_probe(args):
    cases = []
    with open(args.positions) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                cid, rule, size, kind, moves = line.rstrip("\n").split("\t")[:5]
                cases.append((cid, int(rule), int(size), kind, parse_pos(moves)))
    brain = Brain(args.brain, verbose=args.verbose)
    counts = {}
    try:
        for i, (cid, rule, size, kind, moves) in enumerate(cases):
            if args.fresh and i > 0:
                brain.send("END")
                brain.wait_exit(2)
                brain.kill()
                brain = Brain(args.brain, verbose=args.verbose)
            brain.send(f"START {size}")
            if brain.reply(10) != "OK":
                print(f"FAIL {cid}: START {size} not answered OK")
                counts["FAIL"] = counts.get("FAIL", 0) + 1
                continue
            for info in (f"rule {rule}", f"timeout_turn {args.turn_ms}", "timeout_match 0",
                         "max_memory 367001600"):
                brain.send(f"INFO {info}")
            brain.send("BOARD")
            for line in board_lines(moves):
                brain.send(line)
            start = time.monotonic()
            brain.send("DONE")
            reply = brain.reply(args.turn_ms / 1000 + 5)
            took = time.monotonic() - start
            move = parse_move(reply, size)
            if move is None or move in moves:
                verdict, why = "FAIL", f"bad reply {reply!r}"
            else:
                verdict, why = judge(args, rule, size, kind, moves, move)
            counts[verdict] = counts.get(verdict, 0) + 1
            name = pos_name(*move) if move else reply
            print(f"{verdict:6} {cid} ({kind}, rule {rule}): {name} in {took:.2f}s; {why}",
                  flush=True)
        brain.send("END")
        brain.wait_exit(2)
    finally:
        brain.kill()
    print("probe: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    return 1 if counts.get("FAIL") else 0


def judge(args, rule, size, kind, moves, move):
    after = moves + [move]
    if kind == "win":
        verdict = solve(args.solver, rule, size, after, args.nodes)
        if verdict[0] == "lost":
            return "ok", "opponent proven lost"
        if verdict[0] == "win":
            return "FAIL", f"opponent then wins: {' '.join(verdict[1:8])}"
        return "MISS", f"no proof after it (solve: {verdict[0]})"
    threat = solve(args.solver, rule, size, after, args.nodes, win_only=True)
    if threat[0] != "win":
        return "ok", "opponent has no proven win"
    # Lost anyway? Then the position was no puzzle: see whether any defence holds. The
    # set is asked for again at the probe's node budget: the file's column, when there is
    # one, came from extract's smaller budget, and other files may hold anything there.
    listed = solve(args.solver, rule, size, moves, args.nodes)
    for word in listed[1:] if listed[0] == "defend" else []:
        alt = parse_pos(word)[0]
        if solve(args.solver, rule, size, moves + [alt], args.nodes, win_only=True)[0] != "win":
            return "FAIL", f"opponent wins ({' '.join(threat[1:6])}); {word} holds"
    return "LOST", "no listed defence holds either"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    ex = sub.add_parser("extract")
    ex.add_argument("--solver", default="target/release/pbrain-wuzi")
    ex.add_argument("--nodes", type=int, default=300_000)
    ex.add_argument("--per-game", type=int, default=3)
    ex.add_argument("--min-stones", type=int, default=6)
    ex.add_argument("--quiet-stop", type=int, default=4)
    ex.add_argument("--max-defences", type=int, default=6)
    ex.add_argument("dirs", nargs="+")
    pr = sub.add_parser("probe")
    pr.add_argument("--solver", default="target/release/pbrain-wuzi")
    pr.add_argument("--turn-ms", type=int, default=1000)
    pr.add_argument("--nodes", type=int, default=3_000_000)
    pr.add_argument("--fresh", action="store_true",
                    help="a new brain process for each position (no table carried over)")
    pr.add_argument("--verbose", action="store_true", help="show the protocol lines")
    pr.add_argument("positions")
    pr.add_argument("brain", nargs="+")
    args = ap.parse_args()
    return cmd_extract(args) if args.cmd == "extract" else cmd_probe(args)


if __name__ == "__main__":
    sys.exit(main())
