//! The engine's compiled-in tunables, in one place: each with one line on what it does
//! and why it has its value. The measurements behind the values (matches, node counts,
//! puzzle runs) are in `docs/experiments.md`, by date and commit.
//!
//! Naming: `*_NODES` caps a search in nodes, `*_DEPTH` is in plies (attacker moves for
//! the threat search), `*_SHARE_OF_*`/`*_SLICE_OF_*` is a divisor N (the share is 1/N),
//! and a `bool` is a switch of a technique kept because matches or probes favoured it.
//!
//! What the user may change at run time is not here: the time manager's parameters are
//! `time::TimeParams` (config `[time]`), the search's switches `search::SearchOptions`
//! (config `[search]`) and the evaluation's weights files `eval::Evaluator` (config
//! `eval.weights.<rule>`).

/// The node search (`search::node`, `search::driver`).
pub mod search {
    use crate::eval::Value;

    /// Moves searched at an unforced interior node unless `search.interior_moves` says
    /// otherwise: the pattern score puts the moves that matter first, so the rest can be
    /// pruned for depth; the value matches chose (`docs/experiments.md`).
    pub const DEFAULT_INTERIOR_MOVES: usize = 16;
    /// Nodes between two reads of the clock and the stop flag (a power of two): a clock
    /// read is cheap beside 16 nodes, and a node can cost far more than its count says
    /// (its four-chain probes and leaf searches are not counted), so a longer interval
    /// lets a stop or the hard limit wait for many milliseconds.
    pub const LIMIT_CHECK_INTERVAL: u64 = 16;
    /// Smallest depth where the null move (off by default) is tried: the usual value;
    /// shallower nodes save too little to pay for a pass's search.
    pub const NULL_MIN_DEPTH: i32 = 3;
    /// Plies the null move's search is reduced by (plus depth / 6): the usual R = 2.
    pub const NULL_REDUCTION: i32 = 2;
    /// Quiet moves from this index on may be reduced: the first three are the order's
    /// best guesses and keep their full depth.
    pub const LMR_MIN_INDEX: usize = 3;
    /// Smallest depth where a quiet move is reduced: a reduction must leave a ply above
    /// the leaf search.
    pub const LMR_MIN_DEPTH: i32 = 3;
    /// Divisor of the reduction ln(depth)·ln(index+1)/divisor: the Stockfish family's
    /// formula, whose reductions play better here than a fixed one or two plies.
    pub const LMR_DIVISOR: f64 = 2.0;
    /// Deepest node where late-move pruning applies: deeper, a pruned move costs too much.
    pub const LMP_MAX_DEPTH: i32 = 3;
    /// Quiet moves kept by late-move pruning at each depth up to `LMP_MAX_DEPTH`: a few
    /// more per ply, the usual shape.
    pub const LMP_MOVES: [usize; LMP_MAX_DEPTH as usize + 1] = [0, 6, 9, 12];
    /// Deepest node where reverse futility pruning applies: deeper, a static value says
    /// too little about what a search would find.
    pub const RFP_MAX_DEPTH: i32 = 3;
    /// Reverse futility margin per ply of depth (evaluation units; 600 is one unit of
    /// log-odds of winning).
    pub const RFP_MARGIN: Value = 120;
    /// Node cap of each VCF search at an interior node (`search.interior_vcf`): most end
    /// within a few nodes, and the node rate must not suffer for the rest.
    pub const INTERIOR_VCF_NODES: u64 = 1_000;
    /// Least depth at which a node that the opponent's VCF threatens tries each move
    /// against it (one VCF search per move); shallower nodes search as usual.
    pub const VCF_DEFENCE_MIN_DEPTH: i32 = 4;
    /// Node cap of the node VCF at a leaf whose side to move has a four point: most
    /// four-chains end within a few nodes, and a leaf must stay cheap.
    pub const QUIESCENCE_VCF_NODES: u64 = 200;
    /// Entries (a power of two) of the node VCF's table of exhausted positions: small
    /// enough to stay in cache, large enough to hold a search's failed four-chains.
    pub const VCF_TABLE_BITS: u32 = 14;
    /// Attacker moves in one four-chain of the node VCF, at most: as the threat
    /// search's VCF, so both find the same wins.
    pub const VCF_MAX_DEPTH: usize = 30;
    /// Fours tried at one attacker node of the node VCF, the strongest first: enough for
    /// every four a position holds in practice.
    pub const VCF_MAX_FOURS: usize = 32;
}

/// The threat-space searches at the root (`search::tactics`).
pub mod tactics {
    /// Node cap (at least) of a root search for our own win: its first phase's two
    /// thirds hold the deep first-phase wins seen in play.
    pub const ROOT_THREAT_NODES: u64 = 1_500_000;
    /// Node cap (at least) of the search for the opponent's win after our move: its first
    /// phase holds refutations of over a million nodes seen in play. Our own wins keep
    /// `ROOT_THREAT_NODES`: matches did not favour the larger cap for them.
    pub const REFUTATION_THREAT_NODES: u64 = 2_000_000;
    /// Nodes per millisecond of its slice a root search may use when that is more than
    /// its cap: about an older machine's rate, so that long slices are not cut by nodes.
    pub const ROOT_THREAT_NODES_PER_MS: u64 = 2_000;
}

/// How the move's time is shared out among the root's threat searches (`time::plan`).
/// Each is a divisor N: the slice is 1/N of the time named.
pub mod plan {
    /// The book move's gate, its check for a forced result: 1/N of the optimum.
    pub const BOOK_CHECK_SHARE_OF_OPTIMUM: u64 = 4;
    /// The book move's gate, its check of the opponent's win after the book move: it
    /// ends by 1/N of the optimum.
    pub const BOOK_REPLY_CHECK_SHARE_OF_OPTIMUM: u64 = 2;
    /// The quick look for our own win before the iterations: most wins are found in a
    /// few milliseconds, and the iterations need the rest.
    pub const QUICK_WIN_SHARE_OF_OPTIMUM: u64 = 16;
    /// The longer look, where the quick one was cut in a rich threat space, ends this
    /// share of the optimum after the quick look's start: a third plays no worse than
    /// half, which takes more from the iterations.
    pub const TACTICAL_WIN_SHARE_OF_OPTIMUM: u64 = 3;
    /// `search.threat_search` (step 0): the search for our own win before the iterations.
    pub const WIN_SHARE_OF_OPTIMUM: u64 = 8;
    /// `search.threat_search` (step 0): the defences against the opponent's win.
    pub const DEFENCE_SHARE_OF_OPTIMUM: u64 = 8;
    /// Least slice of each threat search of the check after the iterations, even when
    /// they used the optimum; two such slices are held back from the iterations.
    pub const CHECK_SLICE_OF_OPTIMUM: u64 = 4;
    /// The first check of the chosen move runs until this share of the optimum before
    /// the hard limit: the rest is for acting on a refutation found late.
    pub const REFUTATION_RESERVE_OF_OPTIMUM: u64 = 8;
    /// After a refutation, the search among the defences leaves this share of what is
    /// left of the move for the check of its own choice.
    pub const RECHECK_SHARE_OF_REST: u64 = 3;
    /// Slices between iterations start once this share of the optimum has passed: the
    /// early iterations' best moves change too often to be worth a check.
    pub const REFUTATION_SLICES_FROM_OPTIMUM: u64 = 4;
    /// A slice between iterations, for the opponent's win after a best move chosen in a
    /// panic: half the optimum, since a panicked best move is the likeliest to lose.
    pub const REFUTATION_SLICE_OF_OPTIMUM: u64 = 2;
    /// Iterations resumed after the check (`time.resume_after_check`) end this share of
    /// the optimum before the hard limit: the rest is for the check of a new choice.
    pub const RESUMED_CHOICE_CHECK_OF_OPTIMUM: u64 = 8;
    /// The bench's nominal move in threat-search nodes: without a clock its slices are
    /// shares of it, enough for the quick wins and refutations and cheap beside the
    /// bench's fixed-depth search.
    pub const CLOCKLESS_MOVE_NODES: u64 = 400_000;
}

/// The transposition table's size and when it is made (`tt::TableSlot`).
pub mod table {
    /// Table size when nothing asks for another: holds a few seconds of search.
    pub const DEFAULT_TT_BYTES: usize = 64 << 20;
    /// Assumed cost of mapping a table's pages, per MiB: twice the cost measured here.
    pub const MAP_MS_PER_MIB: u64 = 1;
    /// A table made in a move maps its pages at once only when that is assumed to take
    /// at most 1/N of the move's optimum: a shorter move would not touch them all.
    pub const MAP_SHARE_OF_OPTIMUM: u64 = 2;
    /// A larger table than the one made at `START` replaces it in a move only when
    /// making it is assumed to take at most 1/N of the optimum: else the move's search
    /// starts late, and the table made at `START` serves until the next one.
    pub const GROW_SHARE_OF_OPTIMUM: u64 = 16;
}

/// The engine facade (`engine`).
pub mod engine {
    /// Depth of the search that chooses a colour in swap2: even, as the opening lists'
    /// balance is measured, so that the static value's tempo bias cancels out.
    pub const SWAP2_CHOICE_DEPTH: i32 = 6;
    /// Threat-search nodes of each check of the book gate for a forced result: it runs at
    /// every book lookup, so it stays cheap (milliseconds on an opening position).
    pub const BOOK_GATE_NODES: u64 = 20_000;
    /// Threat-search nodes of the book gate's check for the opponent's win after the book
    /// move: a complete threat sequence to find, not a quick look; the clock bounds it first.
    pub const BOOK_REPLY_GATE_NODES: u64 = 1_000_000;
    /// Attacker moves in one line of the book gate's threat searches: the book's own check
    /// uses the same, so the gate agrees with the book's builder.
    pub const BOOK_GATE_DEPTH: u32 = 30;
}

/// The threat-space search (`threat`).
pub mod threat {
    /// Attacker moves (and threes) in one line of the root's threat searches (the
    /// engine's and `solve`'s): deeper lines cost nodes in every budget's pass before a
    /// win and found no more wins.
    pub const ROOT_DEPTH: u32 = 20;
    /// Nodes between two reads of the clock and the stop flag: at about a microsecond a
    /// node, a deadline is overshot by well under a millisecond.
    pub const CLOCK_CHECK_NODES: u64 = 256;
    /// Most attacker moves in one line, whatever the caller asks: bounds the stack and
    /// the reconstructed sequence.
    pub const HARD_MAX_DEPTH: u32 = 64;
    /// Table entries kept before the table is cleared: bounds memory on long searches.
    pub const TT_MAX_ENTRIES: usize = 1 << 18;
    /// A move that threatens a VCF (not a straight four or a four-three) counts as a
    /// threat at VCT level, in a second phase: some wins come only from it.
    pub const VCF_THREATS: bool = true;
    /// Nodes of the VCF sub-search that decides whether a move threatens a VCF: most VCFs
    /// are found within a few dozen nodes, and a smaller cap makes which ones are found
    /// depend on the board's orientation.
    pub const VCF_THREAT_NODES: u64 = 200;
    /// Nodes of the VCF search that decides whether a defender stone in a wide window
    /// (renju, caro) kills a threatened VCF.
    pub const VCF_KILL_NODES: u64 = 300;
    /// Squares of a threatened VCF's proof kept at most; a larger proof is not used.
    pub const VCF_PROOF_SQUARES: usize = 256;
    /// A defender VCF refutes a non-four threat at once (Allis's global refutation).
    pub const GLOBAL_REFUTATION: bool = true;
    /// Nodes of the defender's VCF search of `GLOBAL_REFUTATION`.
    pub const DEFENDER_VCF_NODES: u64 = 200;
    /// An attacker node inside the tree tries the smaller three budgets first: short
    /// wins below the root are found sooner.
    pub const INNER_DEEPENING: bool = true;
    /// Attacker moves (from the root) at which quiet threats (moves making a four-three or
    /// four-four point without an open three) are tried: near the root they cost little,
    /// deeper they multiply the moves of every failing line.
    pub const QUIET_THREAT_PLIES: u32 = 3;
    /// Attacker moves (from the root) at which closed threes are tried in the second
    /// phase: enough for the wins that need one early, without the cost of trying them
    /// everywhere.
    pub const CLOSED_THREE_PLIES: u32 = 3;
    /// Share (numerator, denominator) of a VCT search's node cap that its first phase
    /// (straight fours and four-threes) may use before the second takes over: two thirds
    /// holds first-phase wins that half cut off.
    pub const FIRST_PHASE_SHARE: (u64, u64) = (2, 3);
    /// The root tries first, at each three budget, the move whose refutation at the
    /// budget before took the most nodes: the nearest to a win.
    pub const ROOT_HINT: bool = true;
    /// Nodes a search that follows a nearby root's proof may take: where the proof holds,
    /// following it takes a few hundred to a few thousand nodes.
    pub const NEARBY_PROOF_NODES: u64 = 4096;
    /// A move making neither a four nor an open three, but a new four-three or four-four
    /// point, is tried as a threat (freestyle and standard only, see `threats`).
    pub const QUIET_THREATS: bool = true;
    /// A move making a closed three (and nothing stronger) is tried as a threat in the
    /// second phase: its four may start the VCF it threatens.
    pub const CLOSED_THREE_THREATS: bool = true;
    /// A move making closed threes on two lines is tried as a threat: it can make a
    /// double-four or four-three point where the lines cross.
    pub const CROSSING_THREES: bool = true;
    /// A four-three point counts as a threat: a three-move that creates only one is
    /// searched, with the wider reply window it needs.
    pub const FOUR_THREE_THREATS: bool = true;
    /// Squares of a proof tree kept at most by the defence search: bounds the work on
    /// huge VCT trees.
    pub const PROOF_SQUARE_CAP: usize = 4096;
    /// Node limits of the defence search's passes over its candidates (the last is the
    /// caller's): a first short pass keeps one slow candidate from starving the others.
    pub const PASS_NODES: [u64; 2] = [32_768, u64::MAX];
    /// Own fours in a row followed, each answered by a forced block, to see whether a
    /// delaying four leads to a real defence.
    pub const COUNTER_FOUR_DEPTH: u32 = 3;
}

/// The proof-number solver (`solver`, `pbrain-wuzi solve --pn`); nothing in play reads
/// these.
pub mod solver {
    use std::time::Duration;

    /// Nodes of a node's first threat-space search (for the side to move's win), and of
    /// each search of the defence computation at a defender node: small, because most
    /// nodes are expanded once and a failing search spends its whole cap. Each time a
    /// node is expanded again (it lies on the lines the search keeps returning to) its
    /// search gets twice the nodes, up to `MAX_THREAT_LEVEL` doublings.
    pub const THREAT_NODES: u64 = 3_000;
    /// How many times a node's threat-space search is run, with its cap doubling.
    pub const MAX_THREAT_LEVEL: u8 = 8;
    /// The root's own threat-space search may use 1/`ROOT_THREAT_SHARE` of the budget, and
    /// `ROOT_THREAT_NODES_MAX` at most: a win by threats alone rarely needs more, and past
    /// that the proof-number search spends the nodes better.
    pub const ROOT_THREAT_SHARE: u64 = 2;
    pub const ROOT_THREAT_NODES_MAX: u64 = 4_000_000;
    /// Nodes at least of the threat-space search that re-proves a node while the proof is
    /// written out (it gets as many as the root's, if that is more): the node is known to
    /// be won, so a larger cap is worth it before a proof-number search of it.
    pub const PROOF_THREAT_NODES: u64 = 200_000;
    /// A defender node with more replies to search than this asks the threat module
    /// which of them defend against the attacker's threats (fewer are searched whole).
    pub const FEW_REPLIES: usize = 8;
    /// Fours and threes an attacker node with no threat to answer tries at most.
    pub const THREAT_MOVES: usize = 20;
    /// Quiet moves (neither four nor three) it tries besides, the best-scored.
    pub const QUIET_MOVES: usize = 8;
    /// First proof number of the defender node after an attacker three: a few replies.
    pub const THREE_PN: u32 = 3;
    /// First proof number of the defender node after a quiet attacker move: many replies.
    pub const QUIET_PN: u32 = 12;
    /// The 1+ε of the child thresholds is 1 + 1/`EPSILON_DIVISOR`.
    pub const EPSILON_DIVISOR: u32 = 4;
    /// Time between two progress reports.
    pub const PROGRESS_INTERVAL: Duration = Duration::from_secs(1);
    /// Bytes of the transposition table unless the caller says otherwise (the move cache
    /// takes a quarter of that again).
    pub const DEFAULT_TABLE_BYTES: usize = 64 << 20;
    /// Writing out a proof may take this many times the solve's nodes and time again: it
    /// answers every defender reply, where the search needed only those that defend, and
    /// re-proves each by a search of its own.
    pub const PROOF_BUDGET_FACTOR: u64 = 4;
    /// Lines of a proof tree at most: bounds the memory and the file of one proof.
    pub const MAX_PROOF_LINES: usize = 4_000_000;
}
