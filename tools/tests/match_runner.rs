//! The match runner against real processes: `wuzi-testbrain` in each of its behaviours,
//! the `wuzi-match` command line, and a short match between two `pbrain-wuzi`.

use std::path::{Path, PathBuf};
use std::time::Duration;
use wuzi::types::{Color, Coord};
use wuzi_tools::matchrunner::clock::TimeControl;
use wuzi_tools::matchrunner::engine::EngineSpec;
use wuzi_tools::matchrunner::game::EndReason;
use wuzi_tools::matchrunner::opening::{load_openings, OpeningFormat};
use wuzi_tools::matchrunner::sprt::{SprtDecision, SprtParams};
use wuzi_tools::matchrunner::tournament::{run_match, GameReport, MatchConfig, MatchResult};

mod common;

use common::{testbrain as brain, TESTBRAIN};

/// The brain itself, the workspace root package's binary. Cargo builds it for the root
/// package's own integration tests into the same folder as this package's binaries, so
/// `cargo test` at the workspace root always has a fresh one there; run alone
/// (`cargo test -p wuzi-tools`), this package's tests need it built first.
fn pbrain_wuzi() -> PathBuf {
    let name = format!("pbrain-wuzi{}", std::env::consts::EXE_SUFFIX);
    let path = Path::new(env!("CARGO_BIN_EXE_wuzi-match")).with_file_name(name);
    assert!(
        path.is_file(),
        "{} not built: run `cargo test` at the workspace root",
        path.display()
    );
    path
}

/// A fresh, empty scratch directory under the target directory.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Every game of the match left an SGF, a `.psq` and a protocol log in `dir`.
fn assert_records_written(dir: &Path, games: usize) {
    for game in 1..=games {
        for ext in ["sgf", "psq", "log"] {
            let file = dir.join(format!("game-{:04}.{}", game, ext));
            assert!(file.is_file(), "{} missing", file.display());
        }
    }
}

fn config(first: EngineSpec, second: EngineSpec, games: usize) -> MatchConfig {
    let mut c = MatchConfig::new(first, second);
    c.games = games;
    c.setup.time = TimeControl {
        turn_ms: 1000,
        match_ms: 0,
        tolerance_ms: 1000,
    };
    c.setup.start_timeout = Duration::from_secs(5);
    c
}

fn play(config: &MatchConfig) -> MatchResult {
    run_match(config, &|_, _| {}).expect("match runs")
}

fn by_index(result: &MatchResult) -> Vec<&GameReport> {
    let mut games: Vec<&GameReport> = result.state.games.iter().collect();
    games.sort_by_key(|g| g.index);
    games
}

#[test]
fn each_brain_gets_the_environment_its_spec_names() {
    let mut first = brain("a", &["legal"]);
    first.env = vec![("WUZI_TESTBRAIN_VERSION".into(), "from-env".into())];
    let result = play(&config(first, brain("b", &["legal"]), 2));
    assert!(
        result.about[0].contains("version=\"from-env\""),
        "{}",
        result.about[0]
    );
    assert!(
        result.about[1].contains("version=\"1\""),
        "{}",
        result.about[1]
    );
}

/// Two row-by-row brains on an empty 15×15 board: black's stones are the points with
/// x + y even, so the first five is black's anti-diagonal (4,0)…(0,4), completed by the
/// 61st stone at (0,4) (index 60 = 4·15 + 0). No white five exists before it.
#[test]
fn legal_brains_play_until_blacks_diagonal_five() {
    let c = config(brain("a", &["legal"]), brain("b", &["chatty"]), 2);
    let result = play(&c);
    let games = by_index(&result);
    assert_eq!(games.len(), 2);
    for game in &games {
        let o = &game.outcome;
        assert_eq!(o.winner, Some(Color::Black), "{:?}", o.detail);
        assert_eq!(o.reason, EndReason::Five);
        assert_eq!(o.moves.len(), 61);
        assert_eq!(o.moves.last().map(|m| m.coord), Some(Coord::new(0, 4)));
    }
    // Colours swap, so each brain wins once, as black.
    assert_eq!(games[0].black_engine, 0);
    assert_eq!(games[1].black_engine, 1);
    assert_eq!(result.state.tally.wins, 1);
    assert_eq!(result.state.tally.losses, 1);
    assert!(result.about[0].contains("wuzi-testbrain"));
    // The chatty brain's MESSAGE before its ABOUT answer is not taken for the answer.
    assert!(
        result.about[1].starts_with("name=\"wuzi-testbrain\""),
        "{}",
        result.about[1]
    );
}

/// Every misbehaviour loses, with the right reason, whichever colour the culprit has.
fn culprit_loses(args: &[&str], reason: EndReason, time: TimeControl) -> MatchResult {
    let mut c = config(brain("culprit", args), brain("legal", &["legal"]), 2);
    c.setup.time = time;
    let result = play(&c);
    for game in by_index(&result) {
        assert_eq!(
            game.winner_engine(),
            Some(1),
            "{:?}: {:?}",
            args,
            game.outcome
        );
        assert_eq!(
            game.outcome.reason, reason,
            "{:?}: {:?}",
            args, game.outcome
        );
    }
    assert_eq!(result.state.tally.losses, 2);
    result
}

const NORMAL: TimeControl = TimeControl {
    turn_ms: 1000,
    match_ms: 0,
    tolerance_ms: 1000,
};

#[test]
fn too_slow_loses_on_time() {
    let tight = TimeControl {
        turn_ms: 100,
        match_ms: 0,
        tolerance_ms: 100,
    };
    let result = culprit_loses(&["slow", "ms=3000"], EndReason::Timeout, tight);
    for game in &result.state.games {
        let culprit = Color::BOTH[if game.black_engine == 0 { 0 } else { 1 }];
        // Its only move never arrived.
        assert!(game.outcome.moves.iter().all(|m| m.color != culprit));
    }
}

#[test]
fn crash_loses_and_the_brain_is_restarted() {
    // Crashes on its third move request: in game 2 it can only have played two moves if
    // a fresh process was started after the crash in game 1.
    let result = culprit_loses(&["crash", "after=2"], EndReason::Crash, NORMAL);
    for game in &result.state.games {
        let culprit = if game.black_engine == 0 {
            Color::Black
        } else {
            Color::White
        };
        let played = game
            .outcome
            .moves
            .iter()
            .filter(|m| m.color == culprit)
            .count();
        assert_eq!(played, 2, "{:?}", game.outcome);
    }
}

#[test]
fn off_board_move_loses() {
    culprit_loses(&["offboard"], EndReason::OffBoard, NORMAL);
}

#[test]
fn occupied_move_loses() {
    culprit_loses(&["occupied", "after=1"], EndReason::Occupied, NORMAL);
}

#[test]
fn garbage_reply_loses() {
    let result = culprit_loses(&["garbage"], EndReason::BadReply, NORMAL);
    assert!(result.state.games[0].outcome.detail.contains("hello there"));
}

#[test]
fn banner_before_about_shifts_every_answer_and_loses() {
    // The banner is read as the ABOUT answer; the real ABOUT answer then arrives where
    // START's OK is expected.
    let result = culprit_loses(&["banner"], EndReason::BadReply, NORMAL);
    assert_eq!(result.about[0], "wuzi-testbrain starting up");
    for game in &result.state.games {
        assert!(
            game.outcome.detail.contains("START"),
            "{}",
            game.outcome.detail
        );
        assert!(game.outcome.moves.is_empty());
    }
}

#[test]
fn a_brain_runs_in_its_own_directory_from_a_relative_path() {
    // Integration tests run in the package root (tools/), so the path below is relative
    // to it: up to the workspace root, which holds the target folder.
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let relative = Path::new("..").join(Path::new(TESTBRAIN).strip_prefix(workspace).unwrap());
    assert!(relative.is_relative());
    let dir = scratch("workdir");
    let mut spec = brain("here", &["legal", "log=commands.txt"]);
    spec.path = relative;
    spec.dir = Some(dir.clone());
    let result = play(&config(spec, brain("legal", &["legal"]), 1));
    assert_eq!(result.state.games[0].outcome.reason, EndReason::Five);
    // The relative log file landed in the brain's working directory.
    assert_eq!(commands(&dir.join("commands.txt"))[0], "ABOUT");
}

#[test]
fn missing_executable_loses_every_game_as_a_crash() {
    let mut missing = brain("missing", &[]);
    missing.path = PathBuf::from("/nonexistent/pbrain-nothing");
    let result = play(&config(missing, brain("legal", &["legal"]), 2));
    for game in &result.state.games {
        assert_eq!(game.winner_engine(), Some(1));
        assert_eq!(game.outcome.reason, EndReason::Crash);
    }
}

/// Reads a brain's command log, one command per line.
fn commands(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn the_protocol_is_spoken_like_the_managers() {
    let dir = scratch("protocol");
    let log_a = dir.join("a.txt");
    let log_b = dir.join("b.txt");
    let a = format!("log={}", log_a.display());
    let b = format!("log={}", log_b.display());
    let mut c = config(brain("a", &["legal", &a]), brain("b", &["legal", &b]), 1);
    c.setup.width = 16;
    c.setup.height = 15;
    c.setup.time = TimeControl {
        turn_ms: 700,
        match_ms: 9000,
        tolerance_ms: 1000,
    };
    c.setup.max_memory = 12345;
    c.setup.max_moves = 6;
    c.setup.rule = wuzi::types::Rule::Standard;
    let result = play(&c);
    let game = &result.state.games[0];
    assert_eq!(game.outcome.winner, None);
    assert_eq!(game.outcome.reason, EndReason::MoveCap);
    assert_eq!(game.outcome.moves.len(), 6);
    let a = commands(&log_a);
    assert_eq!(
        a[..7],
        [
            "ABOUT",
            "RECTSTART 16,15",
            "INFO timeout_turn 700",
            "INFO timeout_match 9000",
            "INFO max_memory 12345",
            "INFO rule 1",
            "INFO game_type 1",
        ]
    );
    assert_eq!(a[7], "INFO time_left 9000");
    assert_eq!(a[8], "BEGIN");
    assert!(a[9].starts_with("INFO time_left "));
    assert_eq!(a[10], "TURN 1,0");
    // The match clock runs down (never up) between moves.
    let left: Vec<i64> = a
        .iter()
        .filter_map(|l| l.strip_prefix("INFO time_left "))
        .map(|v| v.parse().unwrap())
        .collect();
    assert_eq!(left.len(), 3);
    assert!(left.windows(2).all(|w| w[1] <= w[0]), "{:?}", left);
    assert_eq!(a.last().map(String::as_str), Some("END"));
    let b = commands(&log_b);
    // White's first move comes after black's: BOARD with black's stone as the opponent's.
    assert_eq!(b[7], "INFO time_left 9000");
    assert_eq!(b[8..11], ["BOARD", "0,0,2", "DONE"]);
}

#[test]
fn per_engine_info_settings_reach_only_their_engine() {
    let dir = scratch("per-engine-info");
    let log_a = dir.join("a.txt");
    let log_b = dir.join("b.txt");
    let mut a = brain("a", &["legal", &format!("log={}", log_a.display())]);
    a.info = vec![
        ("max_node".into(), "5000".into()),
        ("thread_num".into(), "2".into()),
    ];
    let b = brain("b", &["legal", &format!("log={}", log_b.display())]);
    let mut c = config(a, b, 1);
    c.setup.max_moves = 2;
    play(&c);
    let a = commands(&log_a);
    assert_eq!(
        a[6..9],
        [
            "INFO game_type 1",
            "INFO max_node 5000",
            "INFO thread_num 2"
        ]
    );
    assert!(!commands(&log_b).iter().any(|l| l.contains("max_node")));
}

#[test]
fn openings_in_both_formats_are_the_same_and_reach_the_brains_as_board() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let offset = load_openings(
        &data.join("openings-offset.txt"),
        OpeningFormat::Offset,
        15,
        15,
    )
    .unwrap();
    let pos = load_openings(&data.join("openings-pos.txt"), OpeningFormat::Pos, 15, 15).unwrap();
    let stones = |o: &[wuzi_tools::matchrunner::opening::Opening]| -> Vec<Vec<Coord>> {
        o.iter().map(|x| x.moves.clone()).collect()
    };
    assert_eq!(stones(&offset), stones(&pos));
    assert_eq!(
        offset[0].moves,
        vec![Coord::new(7, 7), Coord::new(8, 7), Coord::new(7, 8)]
    );
    let dir = scratch("openings");
    let log_a = dir.join("a.txt");
    let a = format!("log={}", log_a.display());
    let mut c = config(brain("a", &["legal", &a]), brain("b", &["legal"]), 2);
    c.openings = offset;
    c.setup.max_moves = 5;
    let result = play(&c);
    let games = by_index(&result);
    for game in &games {
        assert_eq!(game.opening.line, 2);
        assert!(game.outcome.moves[..3].iter().all(|m| m.from_opening));
    }
    // Game 1: brain a is black; after three opening stones white moves first, so a's first
    // request (the 4th stone is white's) is a BOARD holding four stones in move order.
    let a = commands(&log_a);
    let board = a.iter().position(|l| l == "BOARD").unwrap();
    let w = games[0].outcome.moves[3].coord;
    assert_eq!(
        a[board + 1..board + 6],
        [
            "7,7,1".to_string(),
            "8,7,2".to_string(),
            "7,8,1".to_string(),
            format!("{},{},2", w.x, w.y),
            "DONE".to_string()
        ]
    );
    // Game 2: brain a is white and moves right after the opening.
    let second = a.iter().rposition(|l| l == "BOARD").unwrap();
    assert_eq!(
        a[second + 1..second + 5],
        ["7,7,2", "8,7,1", "7,8,2", "DONE"]
    );
}

#[test]
fn an_opening_that_is_already_won_is_refused() {
    let mut c = config(brain("a", &["legal"]), brain("b", &["legal"]), 2);
    c.openings = wuzi_tools::matchrunner::opening::parse_openings(
        "a1b1a2b2a3b3a4b4a5",
        OpeningFormat::Pos,
        15,
        15,
    )
    .unwrap();
    let error = run_match(&c, &|_, _| {}).unwrap_err();
    assert!(error.contains("line 1"), "{}", error);
}

#[test]
fn concurrent_games_all_finish_with_the_same_results() {
    let mut c = config(brain("a", &["legal"]), brain("b", &["legal"]), 6);
    c.concurrency = 3;
    let result = play(&c);
    let games = by_index(&result);
    assert_eq!(
        games.iter().map(|g| g.index).collect::<Vec<_>>(),
        (0..6).collect::<Vec<_>>()
    );
    for game in games {
        assert_eq!(game.outcome.winner, Some(Color::Black));
        assert_eq!(game.outcome.moves.len(), 61);
    }
    assert_eq!((result.state.tally.wins, result.state.tally.losses), (3, 3));
}

#[test]
fn fresh_brains_are_started_for_every_game() {
    let dir = scratch("fresh");
    let log_a = dir.join("a.txt");
    let a = format!("log={}", log_a.display());
    let mut c = config(brain("a", &["legal", &a]), brain("b", &["legal"]), 3);
    c.setup.max_moves = 4;
    c.fresh_engines = true;
    play(&c);
    let a = commands(&log_a);
    // One process per game: each says ABOUT once and ends with END.
    assert_eq!(a.iter().filter(|l| *l == "ABOUT").count(), 3, "{a:?}");
    assert_eq!(a.iter().filter(|l| *l == "END").count(), 3, "{a:?}");
    c.fresh_engines = false;
    std::fs::remove_file(&log_a).unwrap();
    play(&c);
    assert_eq!(commands(&log_a).iter().filter(|l| *l == "ABOUT").count(), 1);
}

/// elo0 0 / elo1 100 at 5%/5%: five straight wins decide it.
const SPRT_0_100: SprtParams = SprtParams {
    elo0: 0.0,
    elo1: 100.0,
    alpha: 0.05,
    beta: 0.05,
};

#[test]
fn a_shard_plays_its_slice_and_its_sprt_stops_nothing() {
    let mut c = config(
        brain("legal", &["legal"]),
        brain("garbage", &["garbage"]),
        20,
    );
    c.sprt = Some(SPRT_0_100);
    c.shard = Some(wuzi_tools::matchrunner::shard::Shard { index: 2, count: 3 });
    let result = play(&c);
    // 10 pairs in 3 shards: pairs 3..6, games 7..12 (0-based 6..12).
    let numbers: Vec<usize> = by_index(&result).iter().map(|g| g.index).collect();
    assert_eq!(numbers, (6..12).collect::<Vec<_>>());
    // Six straight wins decide the SPRT, yet the shard plays on.
    assert_eq!(result.state.sprt, Some(SprtDecision::AcceptH1));
    assert!(!result.stopped_early);
}

#[test]
fn sprt_stops_the_match_when_decided() {
    // Against a brain that always loses, elo0 0 / elo1 100 at 5%/5% is decided after five
    // straight wins: LLR(5 wins) = 3.942 ≥ ln(19) = 2.944 > LLR(4 wins) = 2.677
    // (computed by hand from the formula in sprt.rs, prior included).
    let mut c = config(
        brain("legal", &["legal"]),
        brain("garbage", &["garbage"]),
        20,
    );
    c.sprt = Some(SPRT_0_100);
    let result = play(&c);
    assert_eq!(result.state.games.len(), 5);
    assert!(result.stopped_early);
    assert_eq!(result.state.sprt, Some(SprtDecision::AcceptH1));
}

#[test]
fn the_command_line_runs_a_match_and_writes_records() {
    let dir = scratch("cli");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_wuzi-match"))
        .args([
            "--engine",
            &format!("cmd={}", TESTBRAIN),
            "arg=legal",
            "name=one",
        ])
        .args([
            "--engine",
            &format!("cmd={}", TESTBRAIN),
            "arg=garbage",
            "name=two",
        ])
        .args(["--games", "2", "--turn", "500", "--out"])
        .arg(&dir)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{}", stdout);
    assert!(
        stdout.contains("game   1/2: one (black) vs two: 1-0 bad-reply"),
        "{}",
        stdout
    );
    assert!(stdout.contains("Losses of two: bad-reply 2"), "{}", stdout);
    assert!(stdout.contains("Elo one - two: +inf"), "{}", stdout);
    assert_records_written(&dir, 2);
    let sgf = std::fs::read_to_string(dir.join("game-0002.sgf")).unwrap();
    assert!(sgf.starts_with("(;FF[4]GM[4]"), "{}", sgf);
    assert!(sgf.contains("PB[two]PW[one]RE[W+F]"), "{}", sgf);
    let summary = std::fs::read_to_string(dir.join("summary.json")).unwrap();
    assert!(summary.contains("\"games_played\": 2"), "{}", summary);
    assert!(
        summary.contains("\"losses_by_reason\": {\"bad-reply\": 2}"),
        "{}",
        summary
    );
}

#[test]
fn the_command_line_rejects_bad_options() {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_wuzi-match"))
        .args(["--engine", "cmd=x", "--games", "two"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    // clap writes "Usage:".
    let stderr = String::from_utf8_lossy(&output.stderr).to_lowercase();
    assert!(stderr.contains("usage"), "{stderr}");
}

#[test]
fn two_real_brains_finish_a_short_match_with_records() {
    let wuzi = EngineSpec::new(pbrain_wuzi());
    let mut second = wuzi.clone();
    second.name = "pbrain-wuzi-2".to_string();
    let dir = scratch("real");
    let mut c = config(wuzi, second, 2);
    c.setup.time = TimeControl {
        turn_ms: 100,
        match_ms: 0,
        tolerance_ms: 1000,
    };
    c.out_dir = Some(dir.clone());
    let result = play(&c);
    assert_eq!(result.state.games.len(), 2);
    for game in &result.state.games {
        assert!(!game.outcome.reason.is_fault(), "{:?}", game.outcome);
        assert!(game.outcome.moves.len() >= 9, "{:?}", game.outcome);
    }
    assert_records_written(&dir, 2);
}

/// One game: a scripted black against the row-by-row brain, from `opening`.
fn scripted_game(rule: wuzi::types::Rule, opening: &[(i32, i32)], script: &str) -> GameReport {
    let moves = format!("moves={}", script);
    let mut c = config(
        brain("script", &["scripted", &moves]),
        brain("legal", &["legal"]),
        1,
    );
    c.setup.rule = rule;
    c.setup.max_moves = opening.len() + 2;
    c.openings = vec![wuzi_tools::matchrunner::opening::Opening {
        moves: opening.iter().map(|&(x, y)| Coord::new(x, y)).collect(),
        text: "test".to_string(),
        line: 1,
    }];
    let result = play(&c);
    result.state.games[0].clone()
}

#[test]
fn adjudication_follows_the_rule_in_force() {
    use wuzi::types::Rule;
    // Black has (1,5) (2,5) (4,5) (5,5) and plays (3,5): exactly five, hemmed in by white
    // at (0,5) and (6,5).
    let five_blocked_both_ends = [
        (1, 5),
        (0, 5),
        (2, 5),
        (6, 5),
        (4, 5),
        (0, 10),
        (5, 5),
        (2, 10),
    ];
    for (rule, winner, reason) in [
        (Rule::Freestyle, Some(Color::Black), EndReason::Five),
        (Rule::Standard, Some(Color::Black), EndReason::Five),
        // Caro: a five blocked at both ends does not win; the game runs into the cap.
        (Rule::Caro, None, EndReason::MoveCap),
    ] {
        let game = scripted_game(rule, &five_blocked_both_ends, "3,5");
        assert_eq!(
            game.outcome.winner, winner,
            "{:?}: {:?}",
            rule, game.outcome
        );
        assert_eq!(game.outcome.reason, reason, "{:?}", rule);
    }
    // Black (0,5) (1,5) (2,5) (4,5) (5,5) + (3,5) is a six: it wins only in freestyle.
    let six = [
        (0, 5),
        (0, 10),
        (1, 5),
        (2, 10),
        (2, 5),
        (4, 10),
        (4, 5),
        (6, 10),
        (5, 5),
        (8, 10),
    ];
    let free = scripted_game(Rule::Freestyle, &six, "3,5");
    assert_eq!(
        (free.outcome.winner, free.outcome.reason),
        (Some(Color::Black), EndReason::Five)
    );
    let standard = scripted_game(Rule::Standard, &six, "3,5");
    assert_eq!(
        (standard.outcome.winner, standard.outcome.reason),
        (None, EndReason::MoveCap)
    );
}

#[test]
fn a_renju_foul_by_black_loses() {
    // Gomocup's renju acceptance position h8 h9 i7 i9 h10 i6 i11 i12: g9 is forbidden.
    let opening = wuzi::types::parse_pos_sequence("h8h9i7i9h10i6i11i12").unwrap();
    let opening: Vec<(i32, i32)> = opening.iter().map(|c| (c.x, c.y)).collect();
    let game = scripted_game(wuzi::types::Rule::Renju, &opening, "6,8");
    assert_eq!(
        game.outcome.winner,
        Some(Color::White),
        "{:?}",
        game.outcome
    );
    assert_eq!(game.outcome.reason, EndReason::Forbidden);
    assert_eq!(game.outcome.detail, "move 6,8");
}
