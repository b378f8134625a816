//! The engine facade: the one object the protocol layer talks to.
//!
//! It owns the board, the settings that `INFO` changes, and the search state (TT). The
//! protocol turns commands into calls here and prints what comes back; nothing in here
//! prints. Every method that changes the position either succeeds completely or leaves
//! the engine exactly as it was and returns an error.
//!
//! Choosing our move is the engine's whole job, from the position to a legal move
//! played on its board ([`Engine::choose_move`]): the opening book behind its threat
//! gate (`book_gate`), else the search under the move's time manager, then a legality
//! check with a fallback move should a bug choose badly.
//!
//! Files: this one (the facade: position commands, move choice, time limits, table
//! size), `settings` (the `INFO` values), `identity` (the `ABOUT` fields), `book_gate`,
//! `swap2`.

mod book_gate;
mod identity;
mod settings;
mod swap2;

pub use identity::Identity;
pub use settings::{Applied, InfoProblem, Settings};

use crate::board::{Board, BoardError};
use crate::book::{self, Book, BookMove};
use crate::config::Config;
use crate::rules;
use crate::search::{self, SearchEvent, SearchLimits};
use crate::time::{
    Budget, Clock, GameProgress, Slice, SystemClock, TimeControl, TimeManager, TimeParams,
};
use crate::types::{Color, Coord, Rule};
use book_gate::GateLimits;
use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

/// Whose stone a `BOARD` line describes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Owner {
    Own,
    Opponent,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineError {
    /// A move or position command before `START`.
    NoBoard,
    Board(BoardError),
    /// A position whose stone counts cannot arise in a game (own vs opponent).
    ImpossibleStoneCount {
        own: usize,
        opponent: usize,
    },
    /// `TAKEBACK` of a cell without a stone.
    NothingToTakeBack(Coord),
    /// `TAKEBACK` of a stone that is not the last one played (the stone given).
    NotTheLastMove {
        asked: Coord,
        last: Coord,
    },
    /// Asked to move on a full board.
    BoardFull,
    /// `BEGIN` or `PLAY` while the opponent is to move (the brain has just moved).
    OpponentToMove,
    /// `TURN` while the brain is to move (it has not answered the last `TURN` yet).
    BrainToMove,
    /// A `SWAP2BOARD` with a stone count other than 0, 3 or 5.
    BadSwap2Count(usize),
    /// A bug the engine could not cover (it is logged too).
    Internal(String),
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineError::NoBoard => write!(f, "no board: send START first"),
            EngineError::Board(e) => write!(f, "{e}"),
            EngineError::ImpossibleStoneCount { own, opponent } => write!(
                f,
                "impossible position: {own} own and {opponent} opponent stones (own must equal opponent or be one fewer)"
            ),
            EngineError::NothingToTakeBack(c) => write!(f, "no stone at {c} to take back"),
            EngineError::NotTheLastMove { asked, last } => write!(
                f,
                "cannot take back {asked}: only the last move ({last}) can be taken back"
            ),
            EngineError::BoardFull => write!(f, "the board is full"),
            EngineError::OpponentToMove => write!(
                f,
                "not the brain's turn: the opponent is to move (send TURN x,y)"
            ),
            EngineError::BrainToMove => write!(
                f,
                "not the opponent's turn: the brain is to move (send BEGIN to ask for its move)"
            ),
            EngineError::BadSwap2Count(n) => write!(f, "SWAP2BOARD needs 0, 3 or 5 stones, got {n}"),
            EngineError::Internal(what) => write!(f, "internal error: {what}"),
        }
    }
}

impl From<BoardError> for EngineError {
    fn from(e: BoardError) -> Self {
        EngineError::Board(e)
    }
}

/// The brain's answer to a `SWAP2BOARD` position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Swap2Reply {
    /// Take the other colour.
    Swap,
    /// Place these stones (3 on an empty board, 2 to "put two", 1 to stay and play).
    Place(Vec<Coord>),
}

pub struct Engine {
    settings: Settings,
    board: Option<Board>,
    /// The colour the brain plays, once the commands tell it (`BEGIN`, `TURN`, `PLAY`,
    /// `BOARD`); `None` after `START`, `TAKEBACK` or a position set without a move.
    own: Option<Color>,
    search: search::SearchState,
    config: Config,
    time_params: TimeParams,
    search_options: search::SearchOptions,
    eval_weights: crate::eval::Evaluator,
    /// Opening books (config `book.*`); empty when the book is switched off.
    books: Vec<Book>,
    /// Started with the engine (at process start): the origin of every time stamp.
    clock: SystemClock,
}

impl Default for Engine {
    fn default() -> Self {
        Engine::new()
    }
}

impl Engine {
    /// An engine with the compiled-in default configuration.
    pub fn new() -> Engine {
        Engine::with_config(Config::embedded())
    }

    /// An engine configured by `config` (problems found in it are reported through
    /// `take_notice`).
    pub fn with_config(config: Config) -> Engine {
        let settings = Settings {
            thread_num: config.get_u64_in("engine.threads", 1..=search::MAX_THREADS as u64, 1)
                as usize,
            ..Settings::default()
        };
        Engine {
            settings,
            board: None,
            own: None,
            search: search::SearchState::new(),
            time_params: TimeParams::from_config(&config),
            search_options: search::SearchOptions::from_config(&config),
            eval_weights: crate::eval::Evaluator::from_config(&config),
            books: load_books(&config),
            config,
            clock: SystemClock::new(),
        }
    }

    /// Who the brain is, for `ABOUT` (config `[about]`).
    pub fn identity(&self) -> Identity {
        Identity::from_config(&self.config)
    }

    /// A problem to tell the user about (configuration warnings), once.
    pub fn take_notice(&mut self) -> Option<String> {
        self.config.take_warning()
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Settings that take effect at the next search, for tools and tests that set them
    /// directly. For the rule use `set_rule`; the protocol uses [`Self::apply_info`].
    pub fn settings_mut(&mut self) -> &mut Settings {
        &mut self.settings
    }

    /// `INFO key value`: the setting `key` names takes the value (see
    /// [`Settings::apply`]: `Err` when it was not taken as sent, saying what is used),
    /// with what it implies: the board follows the rule in force, a folder moves the log
    /// there. A `max_memory` too small to promise is set, and reported. Returns a note
    /// for the user when the value was taken but something it implies failed.
    pub fn apply_info(&mut self, key: &str, value: &str) -> Result<Option<String>, InfoProblem> {
        let applied = self.settings.apply(key, value);
        if key == "rule" {
            // Also after a problem: the rule in force may be the nearest one to the value.
            self.set_rule(self.settings.rule);
        }
        if key == "max_memory" || key == "hash_size" {
            // A table larger than the new size goes now, not at the next search: the
            // next move may come from the book, and the manager measures the process
            // after it. A larger size waits for `START` or a move with time to make it.
            self.search
                .set_tt_bytes(tt_bytes(&self.settings, &self.config));
        }
        if applied? != Applied::Set {
            return Ok(None);
        }
        match key {
            "folder" => Ok(crate::logging::use_info_folder(std::path::Path::new(value))),
            "max_memory" if (1..MIN_MEMORY).contains(&self.settings.max_memory) => {
                let reason = format!(
                    "less than the {} MiB the brain can promise to stay under ({} MiB for \
                     the process, {} MiB for the smallest hash table)",
                    MIN_MEMORY >> 20,
                    PROCESS_MARGIN >> 20,
                    MIN_TABLE >> 20
                );
                let used = "the smallest hash table used".to_string();
                Err(InfoProblem::not_as_sent(key, value, reason, used))
            }
            _ => Ok(None),
        }
    }

    pub fn board(&self) -> Option<&Board> {
        self.board.as_ref()
    }

    /// Changes the rule. Managers send `INFO rule` before or after `START`, so a current
    /// board is rebuilt under the new rule with the same stones in the same order.
    pub fn set_rule(&mut self, rule: Rule) {
        self.settings.rule = rule;
        if let Some(old) = &self.board {
            if old.rule() != rule {
                if let Ok(rebuilt) = rebuild(old, rule) {
                    self.board = Some(rebuilt);
                }
            }
        }
    }

    /// `START n` / `RECTSTART w,h`: a new empty board. On error the old board stays.
    pub fn start(&mut self, width: usize, height: usize) -> Result<(), EngineError> {
        let board = Board::new(width, height, self.settings.rule)?;
        self.board = Some(board);
        self.own = None;
        self.search.new_game();
        // The table is made now if it is missing: START is off the move's clock.
        self.search
            .set_tt_bytes(tt_bytes(&self.settings, &self.config));
        self.search.prepare_table();
        Ok(())
    }

    /// `RESTART`: a new empty board of the same size.
    pub fn restart(&mut self) -> Result<(), EngineError> {
        let (w, h) = {
            let b = self.board.as_ref().ok_or(EngineError::NoBoard)?;
            (b.width(), b.height())
        };
        self.start(w, h)
    }

    /// Plays a stone for the side to move, whoever that is (our own chosen move; tools
    /// and tests setting up a game). The protocol's moves go through [`Self::begin`],
    /// [`Self::opponent_plays`] and [`Self::impose`], which check whose turn it is.
    pub fn play(&mut self, c: Coord) -> Result<(), EngineError> {
        let board = self.board.as_mut().ok_or(EngineError::NoBoard)?;
        board.play(c)?;
        Ok(())
    }

    /// The side to move, if it may be the brain: `Err` when the brain is known to play
    /// the other colour.
    fn brain_to_move(&self) -> Result<Color, EngineError> {
        let board = self.board.as_ref().ok_or(EngineError::NoBoard)?;
        let to_move = board.side_to_move();
        match self.own {
            Some(own) if own != to_move => Err(EngineError::OpponentToMove),
            _ => Ok(to_move),
        }
    }

    /// `BEGIN`: the brain is to move next (on an empty board, or on a position set
    /// without a move, as Yixin-Board does). Refused when the brain has just moved: a
    /// second move in a row would play the opponent's stone.
    pub fn begin(&mut self) -> Result<(), EngineError> {
        self.own = Some(self.brain_to_move()?);
        Ok(())
    }

    /// `PLAY x,y`: the brain's own move, imposed by the manager.
    pub fn impose(&mut self, c: Coord) -> Result<(), EngineError> {
        let own = self.brain_to_move()?;
        self.play(c)?;
        self.own = Some(own);
        Ok(())
    }

    /// `TURN x,y`: the opponent's move. Refused while the brain is to move (it would be
    /// the opponent's second move in a row).
    pub fn opponent_plays(&mut self, c: Coord) -> Result<(), EngineError> {
        let board = self.board.as_ref().ok_or(EngineError::NoBoard)?;
        let opponent = board.side_to_move();
        if self.own == Some(opponent) {
            return Err(EngineError::BrainToMove);
        }
        self.play(c)?;
        self.own = Some(opponent.opponent());
        Ok(())
    }

    /// `BOARD` / `YXBOARD`: replaces the position by these stones, in the given order.
    /// Our colour follows from the counts: equal counts mean we are black (to move), one
    /// opponent stone more means we are white. Checked completely before anything
    /// changes.
    pub fn set_position(&mut self, stones: &[(Coord, Owner)]) -> Result<(), EngineError> {
        let current = self.board.as_ref().ok_or(EngineError::NoBoard)?;
        let own = stones.iter().filter(|(_, o)| *o == Owner::Own).count();
        let opponent = stones.len() - own;
        let own_color = if own == opponent {
            Color::Black
        } else if opponent == own + 1 {
            Color::White
        } else {
            return Err(EngineError::ImpossibleStoneCount { own, opponent });
        };
        let mut board = Board::new(current.width(), current.height(), current.rule())?;
        for &(c, owner) in stones {
            let p = board.pos(c).ok_or(BoardError::OffBoard(c))?;
            if !board.is_empty(p) {
                return Err(BoardError::Occupied(c).into());
            }
            let color = if owner == Owner::Own {
                own_color
            } else {
                own_color.opponent()
            };
            board.place(p, color);
        }
        self.board = Some(board);
        self.own = Some(own_color);
        Ok(())
    }

    /// `YXBOARD`: [`Self::set_position`] without asking for a move: what comes next may
    /// be `BEGIN`, a `TURN` or an analysis, so the brain's colour is left open.
    pub fn set_analysis_position(&mut self, stones: &[(Coord, Owner)]) -> Result<(), EngineError> {
        self.set_position(stones)?;
        self.own = None;
        Ok(())
    }

    /// `TAKEBACK x,y`: removes that stone, which must be the last one played (or the
    /// last of a `BOARD` position). Managers undo move by move from the last; removing
    /// an older stone would leave a position no game reaches (a colour two stones
    /// behind), so it is refused.
    pub fn takeback(&mut self, c: Coord) -> Result<(), EngineError> {
        let board = self.board.as_mut().ok_or(EngineError::NoBoard)?;
        let p = board.pos(c).ok_or(BoardError::OffBoard(c))?;
        if board.is_empty(p) {
            return Err(EngineError::NothingToTakeBack(c));
        }
        match board.last_move() {
            Some(last) if last == p => {
                board.undo();
                // Managers undo one move or two (a human's and the brain's), then ask
                // for a move or give the opponent's: either may come next.
                self.own = None;
                Ok(())
            }
            Some(last) => Err(EngineError::NotTheLastMove {
                asked: c,
                last: board.coord(last),
            }),
            None => Err(EngineError::NothingToTakeBack(c)),
        }
    }

    /// Chooses our move in the position and plays it: the reply to `BEGIN`, `TURN` and
    /// `BOARD`. The book (behind its gate) or the search chooses ([`Self::think`]); a
    /// choice that is not legal, or a panic while choosing, is a bug, and the legal cell
    /// nearest the centre is played instead, with a note through `report` (`internal
    /// error: …`) and in the log, so a fallback move never goes unnoticed. An illegal
    /// reply or none at all loses the game; any legal cell may not.
    pub fn choose_move(
        &mut self,
        started: Instant,
        stop: &AtomicBool,
        report: &mut dyn FnMut(&SearchEvent),
    ) -> Result<Coord, EngineError> {
        let thought = catch_unwind(AssertUnwindSafe(|| self.think(started, stop, &mut *report)));
        let choice = match thought {
            Ok(Ok(c)) if self.is_legal(c) => c,
            Ok(Ok(c)) => {
                self.fallback_move(&format!("the search chose the illegal move {c}"), report)?
            }
            Ok(Err(e)) => return Err(e),
            Err(_) => self.fallback_move("the search panicked", report)?,
        };
        self.play(choice)?;
        Ok(choice)
    }

    /// Whether the side to move may play `c` (empty, on the board, not a renju foul).
    fn is_legal(&self, c: Coord) -> bool {
        let Some(b) = self.board.as_ref() else {
            return false;
        };
        b.pos(c)
            .is_some_and(|p| rules::is_legal_for(&mut b.clone(), p, b.side_to_move()))
    }

    /// The legal cell nearest the centre (an empty one if every empty cell is a foul),
    /// played because of the bug `what`.
    fn fallback_move(
        &self,
        what: &str,
        report: &mut dyn FnMut(&SearchEvent),
    ) -> Result<Coord, EngineError> {
        log::error!("{what}; playing a fallback move");
        report(&SearchEvent::Note(format!(
            "internal error: {what}; playing a fallback move"
        )));
        let b = self.board.as_ref().ok_or(EngineError::NoBoard)?;
        crate::movegen::nearest_to_centre(b)
            .map(|p| b.coord(p))
            .ok_or_else(|| EngineError::Internal(format!("{what}, and no empty cell")))
    }

    /// Searches the position for the side to move and returns the chosen move without
    /// playing it. `started` is when the move command was read: the turn clock runs from
    /// there. `stop` ends the search early (YXSTOP/STOP/END) with the best move so far.
    pub fn think(
        &mut self,
        started: Instant,
        stop: &AtomicBool,
        report: &mut dyn FnMut(&SearchEvent),
    ) -> Result<Coord, EngineError> {
        self.search_lines(1, started, stop, report)
    }

    /// `YXNBEST n`: searches the `n` best moves of the position (each iteration reports
    /// their lines) and returns the best, without playing it. A panic in the search is
    /// an error, not the end of the process.
    pub fn analyse(
        &mut self,
        lines: usize,
        started: Instant,
        stop: &AtomicBool,
        report: &mut dyn FnMut(&SearchEvent),
    ) -> Result<Coord, EngineError> {
        catch_unwind(AssertUnwindSafe(|| {
            self.search_lines(lines.max(1), started, stop, report)
        }))
        .unwrap_or_else(|_| {
            log::error!("the analysis search panicked");
            Err(EngineError::Internal(
                "the analysis search panicked".to_string(),
            ))
        })
    }

    fn search_lines(
        &mut self,
        multi_pv: usize,
        started: Instant,
        stop: &AtomicBool,
        report: &mut dyn FnMut(&SearchEvent),
    ) -> Result<Coord, EngineError> {
        let board = self.board.as_ref().ok_or(EngineError::NoBoard)?;
        if board.is_full() {
            return Err(EngineError::BoardFull);
        }
        let mut limits = self.limits_for(board, started, 1.0);
        // A book move answers a one-line request; an analysis of several lines searches.
        if multi_pv == 1 {
            if let Some(m) = self.book_move(board, limits.time.as_ref(), stop) {
                let proven = if m.proven_win.is_some() {
                    " proven win"
                } else {
                    ""
                };
                report(&SearchEvent::Note(format!(
                    "book {} value {} depth {}{proven}",
                    m.best.to_pos_notation(),
                    m.value,
                    m.depth
                )));
                return Ok(m.best);
            }
        }
        limits.multi_pv = multi_pv;
        self.search
            .set_tt_bytes(tt_bytes(&self.settings, &self.config));
        // The search works on a copy: whatever happens inside it (even a panic), the
        // engine's own position stays intact.
        let mut scratch = board.clone();
        let best = self.search.search(&mut scratch, limits, stop, report);
        Ok(board.coord(best))
    }

    /// The book's move for the position, unless its gate (`book_gate`) finds a forced
    /// result, which only the search may answer, or a forced win for the opponent after
    /// the book move. The gate's checks run in the slices the move's time manager `time`
    /// gives them and stop with the move; when they run out, the search decides within
    /// what is left. Without a clock there is no book move.
    fn book_move(
        &self,
        board: &Board,
        time: Option<&TimeManager>,
        stop: &AtomicBool,
    ) -> Option<BookMove> {
        let found = self.books.iter().find_map(|b| b.lookup(board))?;
        let time = time?;
        let gate = |slice| GateLimits::new(time.slice(slice), stop);
        let usable = !book_gate::position_is_forced(board, gate(Slice::BookForcedCheck))
            && !book_gate::hands_opponent_a_win(board, found.best, gate(Slice::BookReplyCheck));
        usable.then_some(found)
    }

    /// The books in use (for tools and tests).
    pub fn books(&self) -> &[Book] {
        &self.books
    }

    /// The limits of one search started by a command read at `started`; `share` scales
    /// both budgets (a swap2 colour choice takes half).
    fn limits_for(&self, board: &Board, started: Instant, share: f64) -> SearchLimits {
        let s = &self.settings;
        let control =
            TimeControl::from_info(s.timeout_turn as i64, s.timeout_match as i64, s.time_left);
        let empty = board.width() * board.height() - board.move_count();
        let progress = GameProgress {
            stones: board.move_count() as u32,
            empty_cells: empty as u32,
        };
        let mut budget = Budget::compute(&self.time_params, &control, progress);
        if share < 1.0 {
            budget = budget.share(share);
        }
        // The turn clock started when the command was read, not now.
        let waited = started.elapsed().as_millis() as u64;
        let started_at_ms = self.clock.now_ms().saturating_sub(waited);
        SearchLimits {
            started,
            time: Some(TimeManager::start(
                self.clock,
                started_at_ms,
                budget,
                self.time_params.clone(),
            )),
            max_depth: s
                .max_depth
                .map_or(search::MAX_PLY as i32, |d| d.max(1) as i32),
            max_nodes: s.max_node.unwrap_or(u64::MAX),
            options: self.search_options,
            eval: self.eval_weights,
            threads: s.thread_num.clamp(1, search::MAX_THREADS),
            multi_pv: 1,
            clockless_threat_nodes: None,
        }
    }

    /// Black's forbidden points (renju; empty otherwise), for `YXSHOWFORBID`.
    pub fn forbidden_points(&self) -> Result<Vec<Coord>, EngineError> {
        let board = self.board.as_ref().ok_or(EngineError::NoBoard)?;
        Ok(rules::forbidden_points(board)
            .into_iter()
            .map(|p| board.coord(p))
            .collect())
    }

    /// `YXHASHCLEAR`.
    pub fn clear_hash(&mut self) {
        self.search.clear_hash();
    }
}

/// The books the configuration asks for: none when `book.enabled` is false; else the
/// compiled-in ones, each replaced by the file `book.file` (beside the executable or a
/// path) when that holds a book of the same rule and size. Problems leave a warning.
fn load_books(config: &Config) -> Vec<Book> {
    if !config.get_bool("book.enabled", true) {
        return Vec::new();
    }
    let mut books: Vec<Book> = book::EMBEDDED
        .iter()
        .filter_map(|text| Book::parse(text).ok())
        .collect();
    let file = config.get_str("book.file", "embedded");
    if file != "embedded" {
        let path = std::path::Path::new(file);
        let path = match crate::config::exe_dir() {
            Some(dir) if path.is_relative() && dir.join(path).is_file() => dir.join(path),
            _ => path.to_path_buf(),
        };
        let read = std::fs::read_to_string(&path)
            .map_err(|e| e.to_string())
            .and_then(|text| Book::parse(&text));
        match read {
            Ok(extra) => {
                books.retain(|b| b.rule != extra.rule || b.size != extra.size);
                books.insert(0, extra);
            }
            Err(e) => config.add_warning(format!(
                "book.file {}: {e}; built-in book used",
                path.display()
            )),
        }
    }
    books
}

/// `board` rebuilt under `rule`, stones placed in their original order with their
/// original colours.
fn rebuild(board: &Board, rule: Rule) -> Result<Board, EngineError> {
    let mut fresh = Board::new(board.width(), board.height(), rule)?;
    for &p in board.history() {
        let c = board.coord(p);
        let color = board.stone_at(c).unwrap_or(Color::Black);
        // Same geometry, so the cell index is the same.
        fresh.place(p, color);
    }
    Ok(fresh)
}

/// Bytes for the transposition table. Asked for by `INFO hash_size` (KiB), else by the
/// config's `engine.hash_mb`; when neither asks, the default, or four times it when a
/// `max_memory` is known. Always capped so that the rest of the process (tables, stacks,
/// code: well under 48 MiB) fits in `max_memory` too.
fn tt_bytes(settings: &Settings, config: &Config) -> usize {
    let default = crate::tt::DEFAULT_TT_BYTES as u64;
    let asked = if settings.hash_size_kb > 0 {
        settings.hash_size_kb.saturating_mul(1024)
    } else {
        config.get_u64_in("engine.hash_mb", 0..=65_536, 0) << 20
    };
    let (wanted, cap) = match (asked, settings.max_memory) {
        (0, 0) => (default, u64::MAX),
        (0, limit) => (default * 4, limit.saturating_sub(PROCESS_MARGIN)),
        (asked, 0) => (asked, u64::MAX),
        (asked, limit) => (asked, limit.saturating_sub(PROCESS_MARGIN)),
    };
    wanted.min(cap).max(MIN_TABLE) as usize
}

/// Memory kept for the process beside the hash table under `max_memory`.
const PROCESS_MARGIN: u64 = 48 << 20;
/// The smallest hash table.
const MIN_TABLE: u64 = 1 << 20;
/// The least `max_memory` the brain can promise to stay under.
const MIN_MEMORY: u64 = PROCESS_MARGIN + MIN_TABLE;

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(hash_size_kb: u64, max_memory: u64) -> Settings {
        Settings {
            hash_size_kb,
            max_memory,
            ..Settings::default()
        }
    }

    #[test]
    fn the_table_leaves_room_for_the_process_under_max_memory() {
        let config = Config::embedded();
        // Gomocup: 350 MiB for the whole process tree.
        let gomocup = tt_bytes(&settings(0, 367_001_600), &config);
        assert!(gomocup as u64 + (48 << 20) <= 367_001_600, "{gomocup}");
        assert!(
            gomocup >= 128 << 20,
            "a large limit gets a large table: {gomocup}"
        );
        // hash_size asks for more than max_memory allows: max_memory wins.
        let capped = tt_bytes(&settings(1 << 20, 100 << 20), &config);
        assert_eq!(capped, (100 << 20) - (48 << 20));
        // hash_size alone is taken as asked (KiB), never below 1 MiB.
        assert_eq!(tt_bytes(&settings(8192, 0), &config), 8 << 20);
        assert_eq!(tt_bytes(&settings(16, 0), &config), 1 << 20);
        // Nothing asked, no limit: the default.
        assert_eq!(
            tt_bytes(&settings(0, 0), &config),
            crate::tt::DEFAULT_TT_BYTES
        );
    }

    #[test]
    fn a_rejected_position_leaves_the_engine_unchanged() {
        let mut engine = Engine::new();
        engine.start(15, 15).unwrap();
        engine.play(Coord::new(7, 7)).unwrap();
        let before = engine.board().unwrap().hash();
        let too_many_own = [
            (Coord::new(1, 1), Owner::Own),
            (Coord::new(2, 2), Owner::Own),
        ];
        assert!(matches!(
            engine.set_position(&too_many_own),
            Err(EngineError::ImpossibleStoneCount { .. })
        ));
        let duplicate = [
            (Coord::new(1, 1), Owner::Own),
            (Coord::new(1, 1), Owner::Opponent),
        ];
        assert!(matches!(
            engine.set_position(&duplicate),
            Err(EngineError::Board(BoardError::Occupied(_)))
        ));
        assert!(engine.takeback(Coord::new(3, 3)).is_err());
        assert_eq!(engine.board().unwrap().hash(), before);
        assert_eq!(engine.board().unwrap().move_count(), 1);
    }

    #[test]
    fn only_the_last_move_can_be_taken_back() {
        let mut engine = Engine::new();
        engine.start(15, 15).unwrap();
        for (x, y) in [(7, 7), (8, 8), (6, 7)] {
            engine.play(Coord::new(x, y)).unwrap();
        }
        let before = engine.board().unwrap().hash();
        assert_eq!(
            engine.takeback(Coord::new(8, 8)),
            Err(EngineError::NotTheLastMove {
                asked: Coord::new(8, 8),
                last: Coord::new(6, 7)
            })
        );
        assert_eq!(engine.board().unwrap().hash(), before);
        assert_eq!(engine.takeback(Coord::new(6, 7)), Ok(()));
        assert_eq!(engine.takeback(Coord::new(8, 8)), Ok(()));
        let board = engine.board().unwrap();
        assert_eq!(board.move_count(), 1);
        assert_eq!(board.side_to_move(), Color::White);
    }

    #[test]
    fn moves_out_of_turn_are_refused() {
        let mut engine = Engine::new();
        assert_eq!(engine.begin(), Err(EngineError::NoBoard));
        engine.start(15, 15).unwrap();
        engine.begin().unwrap();
        engine.play(Coord::new(7, 7)).unwrap(); // the brain's move
        assert_eq!(engine.begin(), Err(EngineError::OpponentToMove));
        assert_eq!(
            engine.impose(Coord::new(1, 1)),
            Err(EngineError::OpponentToMove)
        );
        engine.opponent_plays(Coord::new(8, 8)).unwrap();
        assert_eq!(
            engine.opponent_plays(Coord::new(9, 9)),
            Err(EngineError::BrainToMove)
        );
        assert_eq!(engine.board().unwrap().move_count(), 2);
        // After a takeback either side may come next.
        engine.takeback(Coord::new(8, 8)).unwrap();
        engine.opponent_plays(Coord::new(8, 8)).unwrap();
        engine.takeback(Coord::new(8, 8)).unwrap();
        engine.begin().unwrap();
    }

    #[test]
    fn a_rule_change_keeps_the_stones() {
        let mut engine = Engine::new();
        engine.start(15, 15).unwrap();
        for (x, y) in [(7, 7), (8, 8), (6, 7)] {
            engine.play(Coord::new(x, y)).unwrap();
        }
        let before = engine.board().unwrap().hash();
        engine.set_rule(Rule::Renju);
        let board = engine.board().unwrap();
        assert_eq!(board.rule(), Rule::Renju);
        assert_eq!(board.hash(), before);
        assert_eq!(board.side_to_move(), Color::White);
    }

    #[test]
    fn the_chosen_move_is_legal_and_played_on_the_board() {
        let mut engine = Engine::new();
        engine.start(15, 15).unwrap();
        engine.settings_mut().max_depth = Some(2);
        engine.play(Coord::new(7, 7)).unwrap();
        let stop = AtomicBool::new(false);
        let mut notes = Vec::new();
        let c = engine
            .choose_move(Instant::now(), &stop, &mut |e| {
                if let SearchEvent::Note(n) = e {
                    notes.push(n.clone());
                }
            })
            .unwrap();
        let board = engine.board().unwrap();
        assert_eq!(board.move_count(), 2);
        assert_eq!(board.stone_at(c), Some(Color::White));
        assert!(
            notes.iter().all(|n| !n.starts_with("internal error")),
            "{notes:?}"
        );
        assert_eq!(
            Engine::new().choose_move(Instant::now(), &stop, &mut |_| {}),
            Err(EngineError::NoBoard)
        );
    }

    #[test]
    fn info_values_reach_the_settings_and_a_new_rule_the_board() {
        let mut engine = Engine::new();
        engine.start(15, 15).unwrap();
        engine.play(Coord::new(7, 7)).unwrap();
        assert_eq!(engine.apply_info("timeout_turn", "1000"), Ok(None));
        assert_eq!(engine.settings().timeout_turn, 1_000);
        assert_eq!(engine.apply_info("rule", "4"), Ok(None));
        assert_eq!(engine.board().unwrap().rule(), Rule::Renju);
        assert_eq!(engine.board().unwrap().move_count(), 1);
        assert!(engine.apply_info("max_node", "many").is_err());
        assert_eq!(engine.settings().max_node, None);
        // A rule read from unusual bits reaches the board too.
        assert!(engine.apply_info("rule", "9").is_ok());
        assert!(engine.apply_info("rule", "3").is_err());
        assert_eq!(engine.board().unwrap().rule(), Rule::Standard);
        // A memory limit too small to promise is set (the smallest table) and reported.
        let problem = engine.apply_info("max_memory", "1000").unwrap_err();
        assert!(problem.to_string().contains("49 MiB"), "{problem}");
        assert_eq!(engine.settings().max_memory, 1000);
        assert_eq!(tt_bytes(engine.settings(), &engine.config), 1 << 20);
        assert_eq!(engine.apply_info("max_memory", "367001600"), Ok(None));
    }

    /// A smaller `max_memory` or `hash_size` drops a larger table when it is sent, not at
    /// the next search: managers send `INFO` after `START`, and the move that follows
    /// may come from the book, which does not search, while the manager measures the
    /// process after it.
    #[test]
    fn a_smaller_memory_limit_drops_a_larger_table_at_once() {
        let mut engine = Engine::new();
        assert_eq!(engine.apply_info("max_memory", "150000000"), Ok(None));
        engine.start(15, 15).unwrap();
        let made = engine.search.table_bytes().unwrap();
        let limit = 60 << 20;
        assert!(made > limit - PROCESS_MARGIN as usize, "{made}");
        assert_eq!(
            engine.apply_info("max_memory", &limit.to_string()),
            Ok(None)
        );
        let left = engine.search.table_bytes();
        assert!(
            left.is_none_or(|b| b <= limit - PROCESS_MARGIN as usize),
            "{left:?}"
        );
        engine.start(15, 15).unwrap();
        assert!(engine.search.table_bytes().unwrap() > 1 << 20);
        assert_eq!(engine.apply_info("hash_size", "1024"), Ok(None));
        let left = engine.search.table_bytes();
        assert!(left.is_none_or(|b| b <= 1 << 20), "{left:?}");
        // A larger limit waits for the next START (or a move with the time to make it).
        assert_eq!(engine.apply_info("hash_size", "0"), Ok(None));
        assert!(engine.search.table_bytes().is_none_or(|b| b <= 1 << 20));
    }
}
