#!/usr/bin/env python3
"""Drives a Piskvork/Gomocup brain through stdin/stdout, for the shell scripts beside it.

  brain_driver.py protocol   [opts] -- BRAIN_CMD...   protocol session checks
  brain_driver.py acceptance [opts] -- BRAIN_CMD...   Gomocup acceptance positions
  brain_driver.py memory     [opts] -- BRAIN_CMD...   two instances play; memory after each move

Every check prints one line `ok ...` or `FAIL ...`; the exit status is 1 when any check
failed. Only the standard library is used. Coordinates on the wire are `x,y` (0-based);
positions files use "pos" notation (`h8` = x 7, y 7: letter from `a` = x 0, number from
1 = y 0), as in shared/positions/README.md.
"""

import argparse
import os
import queue
import random
import re
import subprocess
import sys
import threading
import time

MIB = 1024 * 1024
# Lines a brain may send at any time besides its reply (PROTOCOL.md §2).
CHATTER = ("MESSAGE", "DEBUG", "SUGGEST")


class Brain:
    """One brain process; stderr is merged into stdout as Piskvork does, so a stray
    diagnostic line shows up as a bad reply."""

    def __init__(self, cmd, cwd=None, name="brain", merge_stderr=True, verbose=False):
        self.name = name
        self.verbose = verbose
        self.chatter = []
        self.proc = subprocess.Popen(
            cmd, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT if merge_stderr else subprocess.DEVNULL, bufsize=0)
        self.started = time.monotonic()
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        buf = b""
        while True:
            chunk = self.proc.stdout.read1(65536) if hasattr(self.proc.stdout, "read1") \
                else os.read(self.proc.stdout.fileno(), 65536)
            if not chunk:
                break
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                self.lines.put(line.rstrip(b"\r").decode("utf-8", "replace"))
        if buf:
            self.lines.put(buf.rstrip(b"\r").decode("utf-8", "replace"))
        self.lines.put(None)  # end of stream

    def send(self, line, eol="\r\n"):
        if self.verbose:
            print(f"  {self.name} < {line!r}", flush=True)
        try:
            self.proc.stdin.write((line + eol).encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            pass  # the brain has exited: the next reply() returns None and a check fails

    def exited(self):
        """Exit code if the process has ended, else None."""
        return self.proc.poll()

    def reply(self, timeout):
        """Next line that is not MESSAGE/DEBUG/SUGGEST; None on timeout or end of stream."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                return None
            if line is None:
                self.lines.put(None)
                return None
            if self.verbose:
                print(f"  {self.name} > {line!r}", flush=True)
            if line.split(" ", 1)[0].upper() in CHATTER:
                self.chatter.append(line)
                continue
            return line

    def unexpected(self, seconds):
        """Every reply line that arrives within `seconds` (all of them are consumed, so a
        stray line cannot shift the replies of the checks after it)."""
        deadline = time.monotonic() + seconds
        extra = []
        while True:
            line = self.reply(max(0.0, deadline - time.monotonic()))
            if line is None:
                return extra
            extra.append(line)

    def wait_exit(self, timeout):
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


# --- memory of a process tree, from /proc ------------------------------------------------

def _children_map():
    kids = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
            ppid = int(stat[stat.rindex(")") + 2:].split()[1])
        except (OSError, ValueError):
            continue
        kids.setdefault(ppid, []).append(int(entry))
    return kids


def process_tree(pid):
    kids = _children_map()
    tree, todo = [], [pid]
    while todo:
        p = todo.pop()
        tree.append(p)
        todo.extend(kids.get(p, []))
    return tree


def memory_of(pids):
    """Sums over pids: rss, uss (private clean + dirty), pss, hwm (peak RSS), data (VmData:
    private writable mappings, touched or not: the nearest thing to Windows' commit); and
    the largest main-thread stack (VmStk)."""
    total = dict(rss=0, uss=0, pss=0, hwm=0, data=0, stack=0)
    for p in pids:
        try:
            with open(f"/proc/{p}/smaps_rollup") as f:
                for line in f:
                    parts = line.split()
                    if len(parts) != 3 or parts[2] != "kB":
                        continue   # the first line names the mapping range
                    key, kb = parts[0].rstrip(":"), int(parts[1]) * 1024
                    if key == "Rss":
                        total["rss"] += kb
                    elif key == "Pss":
                        total["pss"] += kb
                    elif key in ("Private_Clean", "Private_Dirty"):
                        total["uss"] += kb
            with open(f"/proc/{p}/status") as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        total["hwm"] += int(line.split()[1]) * 1024
                    elif line.startswith("VmData:"):
                        total["data"] += int(line.split()[1]) * 1024
                    elif line.startswith("VmStk:"):
                        # The main thread's stack as far as it ever grew (Linux build:
                        # Windows reserves 2 MiB for it, Linux 8 MiB).
                        total["stack"] = max(total["stack"], int(line.split()[1]) * 1024)
        except (OSError, ValueError):
            continue
    return total


# --- board helpers --------------------------------------------------------------------------

def parse_pos(moves):
    """'h8h9i10' -> [(7,7), (7,8), (8,9)]"""
    out, i = [], 0
    while i < len(moves):
        x = ord(moves[i]) - ord("a")
        j = i + 1
        while j < len(moves) and moves[j].isdigit():
            j += 1
        out.append((x, int(moves[i + 1:j]) - 1))
        i = j
    return out


RULES = {"freestyle": 0, "standard": 1, "renju": 4, "caro": 8}


def read_sgf(path):
    """(rule number, size, moves, result letter 'B'/'W'/None) of one wuzi-match SGF."""
    text = open(path, encoding="utf-8").read()
    size = int(re.search(r"SZ\[(\d+)", text).group(1))
    rule = RULES.get(re.search(r"RU\[([a-z]+)", text).group(1), 0)
    result = re.search(r"RE\[([BW])\+", text)
    moves = [(ord(a) - 97, ord(b) - 97) for a, b in re.findall(r";[BW]\[([a-z])([a-z])\]", text)]
    return rule, size, moves, result.group(1) if result else None


def pos_name(x, y):
    return f"{chr(ord('a') + x)}{y + 1}"


def parse_move(line, size):
    """'x,y' -> (x, y) on the board, else None."""
    try:
        xs, ys = line.strip().split(",")
        x, y = int(xs), int(ys)
    except (ValueError, AttributeError):
        return None
    return (x, y) if 0 <= x < size and 0 <= y < size else None


def board_lines(moves):
    """BOARD body for the side to move: own stones 1, opponent's 2, in move order."""
    me = len(moves) % 2
    return [f"{x},{y},{1 if i % 2 == me else 2}" for i, (x, y) in enumerate(moves)]


def five_from(stones, x, y, size):
    """Freestyle win check: five or more in a row through (x, y)."""
    colour = stones[(x, y)]
    for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
        n = 1
        for sign in (1, -1):
            cx, cy = x + sign * dx, y + sign * dy
            while 0 <= cx < size and 0 <= cy < size and stones.get((cx, cy)) == colour:
                n += 1
                cx, cy = cx + sign * dx, cy + sign * dy
        if n >= 5:
            return True
    return False


# --- checks -------------------------------------------------------------------------------

class BrainDied(Exception):
    pass


class Report:
    """Counts checks. A failed check whose brain has exited ends the session (BrainDied)
    rather than waiting out the timeouts of the checks after it."""

    def __init__(self, brains=()):
        self.failed = 0
        self.passed = 0
        self.brains = list(brains)

    def check(self, ok, what):
        dead = [b for b in self.brains if b.exited() is not None]
        if not ok and dead:
            what += "".join(f" ({b.name} has exited, code {b.exited()})" for b in dead)
        if ok:
            self.passed += 1
            print(f"ok   {what}", flush=True)
        else:
            self.failed += 1
            print(f"FAIL {what}", flush=True)
            if dead:
                raise BrainDied()
        return ok

    def finish(self, title):
        print(f"{title}: {self.passed} passed, {self.failed} failed", flush=True)
        return 1 if self.failed else 0


def cmd_protocol(args):
    t = args.reply_timeout
    b = Brain(args.brain, cwd=args.cwd, verbose=args.verbose)
    rep = Report([b])
    try:
        b.send("ABOUT")
        about = b.reply(t)
        rep.check(about is not None and about.lower().startswith("name="),
                  f"ABOUT -> one line starting name=: {about!r}")
        extra = b.unexpected(0.3)
        rep.check(not extra, f"nothing after the ABOUT line (no banner): {extra!r}")

        b.send("START 15")
        r = b.reply(t)
        rep.check(r == "OK", f"START 15 (CR LF) -> OK: {r!r}")
        b.send("INFO timeout_turn 1000")
        b.send("INFO max_memory 367001600")
        b.send("INFO rule 0")
        extra = b.unexpected(0.3)
        rep.check(not extra, f"INFO lines get no reply: {extra!r}")

        # Malformed or impossible lines: ERROR or UNKNOWN, state unchanged.
        for bad in ("FOOBAR 1 2", "TURN", "TURN 7", "TURN a,b", "TURN 15,3", "TURN -1,0",
                    "START -5", "START x"):
            b.send(bad)
            r = b.reply(t)
            word = (r or "").split(" ", 1)[0]
            rep.check(word in ("ERROR", "UNKNOWN"), f"{bad!r} -> ERROR/UNKNOWN: {r!r}")

        # Lower case, bare LF and lone CR line ends (managers differ; PROTOCOL.md §1).
        b.send("start 15", eol="\n")
        r = b.reply(t)
        rep.check(r == "OK", f"'start 15' (lower case, LF) -> OK: {r!r}")
        b.send("START 15", eol="\r")
        b.send("ABOUT", eol="\r")
        r1, r2 = b.reply(t), b.reply(t)
        rep.check(r1 == "OK" and (r2 or "").lower().startswith("name="),
                  f"lone CR line ends: START 15 -> {r1!r}, ABOUT -> {r2!r}")

        # The board is still 15x15 and empty: a move, then a reply on the board.
        b.send("START 15")
        rep.check(b.reply(t) == "OK", "START 15 again -> OK")
        b.send("TURN 7,7")
        r = b.reply(args.move_timeout)
        mv = parse_move(r, 15)
        rep.check(mv is not None and mv != (7, 7), f"TURN 7,7 -> a free point: {r!r}")
        b.send("RESTART")
        r = b.reply(t)
        rep.check(r == "OK", f"RESTART -> OK: {r!r}")
        b.send("BEGIN")
        r = b.reply(args.move_timeout)
        first = parse_move(r, 15)
        rep.check(first is not None, f"BEGIN -> a move: {r!r}")

        # The reader thread keeps reading while the brain thinks: YXSTOP (c-gomoku-cli at
        # the turn's end) gets the move at once, END ends the process mid-search.
        reply_x = 0 if first != (0, 0) else 1
        b.send("INFO timeout_turn 60000")
        b.send(f"TURN {reply_x},0")
        early = b.unexpected(0.5)
        start = time.monotonic()
        b.send("YXSTOP")
        r = early[0] if early else b.reply(args.move_timeout)
        took = time.monotonic() - start
        mv = parse_move(r, 15)
        rep.check(not early and mv is not None and mv not in (first, (reply_x, 0))
                  and took < 1.0,
                  f"YXSTOP during a 60 s search -> a move within 1 s: {r!r} in {took:.2f}s"
                  + (" (the reply came before YXSTOP: no search to stop)" if early else ""))
        b.send(f"TURN {reply_x},1")
        time.sleep(0.5)
        start = time.monotonic()
        b.send("END")
        code = b.wait_exit(args.end_timeout)
        took = time.monotonic() - start
        rep.check(code is not None, f"END during a 60 s search -> process exits in "
                  f"{took:.2f}s (limit {args.end_timeout}s), exit code {code}")
        rest = b.unexpected(0.2)
        rep.check(not rest, f"nothing written after END: {rest!r}")
    except BrainDied:
        pass
    finally:
        b.kill()
    return rep.finish("protocol")


def cmd_acceptance(args):
    rep = Report()
    cases = []
    with open(args.positions) as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            cid, rule, size, kind, moves, answers = line.rstrip("\n").split("\t")[:6]
            cases.append((cid, int(rule), int(size), kind, parse_pos(moves),
                          set(answers.split(","))))
    b = Brain(args.brain, cwd=args.cwd, verbose=args.verbose)
    rep.brains.append(b)
    try:
        for cid, rule, size, kind, moves, answers in cases:
            b.send(f"START {size}")
            ok = b.reply(args.reply_timeout)
            if not rep.check(ok == "OK", f"{cid}: START {size} -> OK: {ok!r}"):
                continue
            b.send(f"INFO rule {rule}")
            b.send(f"INFO timeout_turn {args.turn_ms}")
            b.send("INFO timeout_match 0")
            b.send("INFO max_memory 367001600")
            b.send("BOARD")
            for line in board_lines(moves):
                b.send(line)
            start = time.monotonic()
            b.send("DONE")
            r = b.reply(args.move_timeout)
            took = time.monotonic() - start
            mv = parse_move(r, size)
            name = pos_name(*mv) if mv else None
            legal = mv is not None and mv not in moves
            if kind == "avoid":
                good = legal and name not in answers
                want = f"not {','.join(sorted(answers))}"
            else:
                good = legal and name in answers
                want = ",".join(sorted(answers))
            rep.check(good, f"{cid} (rule {rule}): played {r!r} = {name} in {took:.2f}s, "
                      f"wanted {want}")
        b.send("END")
        b.wait_exit(args.end_timeout)
    except BrainDied:
        pass
    finally:
        b.kill()
    return rep.finish("acceptance")


def cmd_memory(args):
    """Two instances of the brain play each other (freestyle, args.size) game after game
    until args.moves moves were played in all; after every move the mover's memory is
    sampled. Fails when the peak of args.metric reaches args.limit_mib, or when a move
    takes longer than timeout_turn (+ args.tolerance_ms) or a game longer than the match
    clock (args.match_ms, sent with time_left before every move)."""
    rep = Report()
    limit = int(args.limit_mib * MIB)
    brains = [Brain(args.brain, cwd=args.cwd, name=f"brain{i}", verbose=args.verbose)
              for i in (0, 1)]
    rep.brains.extend(brains)
    peak = dict(rss=0, uss=0, pss=0, hwm=0, data=0, stack=0)
    peak_at = {}
    rng = random.Random(args.seed)
    size, total, game = args.size, 0, 0
    slowest, slowest_at, most_used = 0.0, "-", 0.0
    try:
        while total < args.moves:
            game += 1
            # A short random opening near the centre, then the brains alternate; each
            # brain's first move of a game comes as BOARD, later ones as TURN.
            c = size // 2
            moves = []
            while len(moves) < args.opening:
                p = (c + rng.randint(-2, 2), c + rng.randint(-2, 2))
                if p not in moves:
                    moves.append(p)
            stones = {p: i % 2 for i, p in enumerate(moves)}
            synced = [False, False]
            for b in brains:
                b.send(f"START {size}")
                r = b.reply(args.reply_timeout)
                if r != "OK":
                    rep.check(False, f"{b.name}: START {size} -> OK: {r!r}")
                    raise BrainDied()
                for line in (f"INFO max_memory {args.max_memory}", "INFO rule 0",
                             f"INFO timeout_turn {args.turn_ms}",
                             f"INFO timeout_match {args.match_ms}", "INFO game_type 1"):
                    b.send(line)
            used = [0.0, 0.0]   # match clock per brain, seconds
            winner = "unfinished (move budget spent)"
            game_start = len(moves)
            while total < args.moves:
                side = len(moves) % 2
                b = brains[(side + game) % 2]       # colours swap from game to game
                idx = brains.index(b)
                if args.match_ms:
                    b.send(f"INFO time_left {int(args.match_ms - used[idx] * 1000)}")
                if synced[idx]:
                    b.send(f"TURN {moves[-1][0]},{moves[-1][1]}")
                else:
                    b.send("BOARD")
                    for line in board_lines(moves):
                        b.send(line)
                    b.send("DONE")
                    synced[idx] = True
                sent = time.monotonic()
                r = b.reply(args.move_timeout)
                took = time.monotonic() - sent
                used[idx] += took
                most_used = max(most_used, used[idx])
                if took > slowest:
                    slowest, slowest_at = took, f"game {game} move {len(moves) + 1} ({b.name})"
                if took * 1000 > args.turn_ms + args.tolerance_ms:
                    rep.check(False, f"game {game} move {len(moves) + 1}: {b.name} took "
                              f"{took * 1000:.0f} ms, over timeout_turn {args.turn_ms} ms")
                if args.match_ms and used[idx] * 1000 > args.match_ms + args.tolerance_ms:
                    rep.check(False, f"game {game}: {b.name} used {used[idx] * 1000:.0f} ms, "
                              f"over timeout_match {args.match_ms} ms")
                mv = parse_move(r, size)
                if mv is None or mv in stones:
                    rep.check(False, f"game {game} move {len(moves) + 1}: {b.name} -> "
                              f"illegal move or no reply: {r!r}")
                    raise BrainDied()
                moves.append(mv)
                stones[mv] = side
                total += 1
                m = memory_of(process_tree(b.proc.pid) if args.tree else [b.proc.pid])
                for k, v in m.items():
                    if v > peak[k]:
                        peak[k] = v
                        peak_at[k] = f"game {game} move {len(moves)} ({b.name})"
                if args.progress and total % args.progress == 0:
                    print(f"  {total} moves: {b.name} rss {m['rss'] / MIB:.1f} MiB, "
                          f"uss {m['uss'] / MIB:.1f} MiB, peak rss "
                          f"{peak['rss'] / MIB:.1f} MiB", flush=True)
                if five_from(stones, *mv, size):
                    winner = b.name
                    break
                if len(moves) == size * size:
                    winner = "none (board full)"
                    break
            print(f"  game {game}: {len(moves) - game_start} moves after a "
                  f"{game_start}-stone opening, winner {winner}", flush=True)
        for b in brains:
            b.send("END")
        for b in brains:
            b.wait_exit(args.end_timeout)
    except BrainDied:
        return rep.finish("memory")
    finally:
        for b in brains:
            b.kill()
    print(f"memory after each of {total} moves ({'process tree' if args.tree else 'process'}"
          f" of each brain), peaks:")
    for k, label in (("rss", "RSS"), ("uss", "USS (private)"), ("pss", "PSS"),
                     ("hwm", "VmHWM (peak RSS)"), ("data", "VmData (private, committed)"),
                     ("stack", "VmStk (Linux main stack)")):
        print(f"  {label:28} {peak[k] / MIB:8.1f} MiB  at {peak_at.get(k, '-')}")
    print(f"slowest move {slowest * 1000:.0f} ms at {slowest_at} (timeout_turn "
          f"{args.turn_ms} ms); most match time used in a game {most_used * 1000:.0f} ms"
          + (f" (timeout_match {args.match_ms} ms)" if args.match_ms else ""))
    rep.check(peak[args.metric] < limit,
              f"peak {args.metric.upper()} {peak[args.metric] / MIB:.1f} MiB < limit "
              f"{args.limit_mib:.0f} MiB (max_memory {args.max_memory / MIB:.0f} MiB "
              f"less the 32 MiB margin)")
    return rep.finish("memory")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)

    def common(p):
        p.add_argument("--cwd", help="working directory of the brain (not its folder)")
        p.add_argument("--reply-timeout", type=float, default=5.0,
                       help="seconds to wait for a non-move reply")
        p.add_argument("--move-timeout", type=float, default=30.0,
                       help="seconds to wait for a move")
        p.add_argument("--end-timeout", type=float, default=1.0,
                       help="seconds the brain may take to exit after END")
        p.add_argument("-v", "--verbose", action="store_true", help="print the session")
        p.add_argument("brain", nargs="+", help="the brain's command line (after --)")

    common(sub.add_parser("protocol", help="protocol session checks"))
    p = sub.add_parser("acceptance", help="Gomocup acceptance positions")
    p.add_argument("--positions", required=True)
    p.add_argument("--turn-ms", type=int, default=2000)
    common(p)
    p = sub.add_parser("memory", help="memory over many moves")
    p.add_argument("--moves", type=int, default=300, help="moves to play in all")
    p.add_argument("--size", type=int, default=20)
    p.add_argument("--opening", type=int, default=3, help="random opening stones")
    p.add_argument("--turn-ms", type=int, default=500)
    p.add_argument("--match-ms", type=int, default=0,
                   help="timeout_match for each brain (0: none); time_left before each move")
    p.add_argument("--tolerance-ms", type=int, default=0,
                   help="slack over timeout_turn / timeout_match before a move counts late")
    p.add_argument("--max-memory", type=int, default=367001600)
    p.add_argument("--limit-mib", type=float, default=350 - 32)
    p.add_argument("--metric", choices=("rss", "uss", "pss", "hwm", "data"), default="rss")
    p.add_argument("--no-tree", dest="tree", action="store_false",
                   help="measure the brain process only, not its children")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--progress", type=int, default=50, help="print every N moves (0: never)")
    common(p)
    args = ap.parse_args()
    if args.brain and args.brain[0] == "--":
        args.brain = args.brain[1:]
    return {"protocol": cmd_protocol, "acceptance": cmd_acceptance,
            "memory": cmd_memory}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
