#!/usr/bin/env python3
"""Keeps the openings that self-play games found balanced: neither colour won every game.

  openings_by_result.py SUMMARY.json... > LIST

Reads the `summary.json` of one or more wuzi-match runs (each opening played with colours
swapped), groups the games by opening, and prints, in the order first met, every opening
with at least two games where black did not win them all and white did not win them all
(a draw counts for neither). A summary of the colours' results goes to stderr.

Why results and not values: a list balanced by a fixed-depth value is not balanced in play
(openings/README.md, "How balanced they are in play"). When the same colour wins both
games of an opening in self-play, that colour is likely to win it whoever plays it, and in
a match such a pair tends to split 1-1 and say nothing about the engines.

Openings equal under one of the eight symmetries of the board are one opening (the first
spelling met is printed). Only the standard library is used.
"""

import json
import sys
from collections import Counter

# The eight symmetries of a square board around its centre, on offsets (dx, dy). The
# generator's symmetric-duplicate test is the Rust twin of `canonical` below
# (`canonical` in tools/src/openings.rs, private to the tools, which a script cannot call):
# a change to what counts as the same opening belongs in both.
SYMMETRIES = [
    lambda x, y: (x, y),
    lambda x, y: (-x, y),
    lambda x, y: (x, -y),
    lambda x, y: (-x, -y),
    lambda x, y: (y, x),
    lambda x, y: (-y, x),
    lambda x, y: (y, -x),
    lambda x, y: (-y, -x),
]


def stones(opening):
    """Offsets of an opening in the offset format `dx,dy, dx,dy, ...`, black first."""
    values = [int(t) for t in opening.replace(",", " ").split()]
    if len(values) % 2:
        raise ValueError(f"odd number of coordinates: {opening!r}")
    return [(values[i], values[i + 1]) for i in range(0, len(values), 2)]


def canonical(opening):
    """The same key for every symmetric image: the smallest (black set, white set)."""
    placed = stones(opening)
    images = []
    for sym in SYMMETRIES:
        moved = [sym(x, y) for x, y in placed]
        images.append((tuple(sorted(moved[0::2])), tuple(sorted(moved[1::2]))))
    return min(images)


def colour_won(game):
    """'B' when black won, 'W' when white won, 'D' for a draw."""
    winner = game.get("winner")
    if not winner:
        return "D"
    return "B" if winner == game["black"] else "W"


def main(paths):
    if not paths:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    spelling = {}
    results = {}
    for path in paths:
        with open(path, encoding="utf-8") as f:
            summary = json.load(f)
        for game in summary["games"]:
            key = canonical(game["opening"])
            spelling.setdefault(key, game["opening"])
            results.setdefault(key, []).append(colour_won(game))
    kept = []
    shapes = Counter()
    for key, colours in results.items():
        shapes["".join(sorted(colours))] += 1
        if len(colours) >= 2 and set(colours) != {"B"} and set(colours) != {"W"}:
            kept.append(spelling[key])
    games = sum(len(c) for c in results.values())
    black = sum(c.count("B") for c in results.values())
    draws = sum(c.count("D") for c in results.values())
    score = 100.0 * (black + draws / 2) / games if games else 0.0
    print(
        f"{len(results)} openings, {games} games: black won {black}, drew {draws} "
        f"(black scored {score:.1f}%); results by opening "
        f"{dict(sorted(shapes.items()))}; kept {len(kept)}",
        file=sys.stderr,
    )
    for opening in kept:
        print(opening)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
