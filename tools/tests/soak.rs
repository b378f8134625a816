//! The soak (`wuzi-tools soak`) against real processes: it finds each fault of a
//! misbehaving `wuzi-testbrain`, and a few short games of `pbrain-wuzi` under every
//! disturbance find nothing wrong.

mod common;

use wuzi::types::Rule;
use wuzi_tools::matchrunner::engine::EngineSpec;
use wuzi_tools::soak::plan::Mix;
use wuzi_tools::soak::report::{FaultKind, GameReport};
use wuzi_tools::soak::tally::Tally;
use wuzi_tools::soak::{run, SoakConfig};

use common::testbrain;

/// `games` plain games (no disturbance: the test brain speaks only the core protocol)
/// of 15×15 `rule`, brain 0 black in the odd games.
fn plain_soak(first: EngineSpec, second: EngineSpec, rule: Rule, games: usize) -> SoakConfig {
    let mut config = SoakConfig::new(first, games);
    config.brains[1] = second;
    config.mix = Mix::none();
    config.ranges.rules = vec![rule];
    config.ranges.sizes = vec![15];
    config.ranges.turn_ms = 100..=100;
    config.ranges.opening_stones = 0..=0;
    config
}

fn play(config: &SoakConfig) -> (Tally, Vec<GameReport>) {
    let mut reports = Vec::new();
    let tally = run(config, &mut |report, _| reports.push(report.clone()));
    (tally, reports)
}

/// The only faults of the run are `count` of `kind`, all by brain `brain`.
fn assert_faults(tally: &Tally, reports: &[GameReport], kind: FaultKind, count: usize) {
    let faults: Vec<_> = reports.iter().flat_map(|r| r.faults.clone()).collect();
    assert_eq!(tally.count(kind), count, "{faults:?}");
    assert_eq!(faults.len(), count, "{faults:?}");
    assert!(faults.iter().all(|f| f.brain == 0), "{faults:?}");
    assert!(!tally.passed(u64::MAX));
}

#[test]
fn legal_test_brains_play_whole_games_without_a_fault() {
    let config = plain_soak(
        testbrain("a", &["legal"]),
        testbrain("b", &["legal"]),
        Rule::Freestyle,
        3,
    );
    let (tally, reports) = play(&config);
    assert_eq!(tally.games, 3);
    assert!(tally.failed_games.is_empty(), "{reports:?}");
    assert!(tally.passed(config.memory_limit));
    assert!(tally.moves > 10);
    assert_eq!(
        tally.events.launches, 2,
        "processes are kept from game to game"
    );
    assert!(reports
        .iter()
        .all(|r| r.peak_rss[0].is_some() || !cfg!(target_os = "linux")));
}

#[test]
fn each_misbehaviour_is_counted_as_its_fault() {
    for (args, kind) in [
        (&["occupied", "after=2"][..], FaultKind::Illegal),
        (&["offboard", "after=2"], FaultKind::Illegal),
        (&["garbage", "after=2"], FaultKind::Protocol),
        (&["chatty", "after=2"], FaultKind::Protocol),
        (&["slow", "after=2", "ms=400"], FaultKind::TimeLoss),
    ] {
        let config = plain_soak(
            testbrain("bad", args),
            testbrain("good", &["legal"]),
            Rule::Freestyle,
            1,
        );
        let (tally, reports) = play(&config);
        assert_faults(&tally, &reports, kind, 1);
        assert!(!reports[0].transcript.is_empty(), "{args:?}: no transcript");
    }
}

#[test]
fn a_crash_or_a_hang_is_a_crash_and_the_brain_is_started_anew() {
    let config = plain_soak(
        testbrain("bad", &["crash", "after=1"]),
        testbrain("good", &["legal"]),
        Rule::Freestyle,
        2,
    );
    let (tally, reports) = play(&config);
    assert_faults(&tally, &reports, FaultKind::Crash, 2);
    assert_eq!(
        tally.events.launches, 3,
        "the crashed brain is launched again"
    );
    let config = plain_soak(
        testbrain("bad", &["slow", "after=1", "ms=2500"]),
        testbrain("good", &["legal"]),
        Rule::Freestyle,
        1,
    );
    let (tally, reports) = play(&config);
    assert_faults(&tally, &reports, FaultKind::Crash, 1);
    assert!(reports[0].faults[0].detail.contains("no answer"));
}

#[test]
fn a_renju_foul_is_counted_apart_from_illegal_moves() {
    // Black: (5,7) (6,7) (8,5) (8,6), then (8,7) makes two open threes (a split one on
    // row 7 and one on column 8); white's stones go to row 0, far away.
    let script = "moves=5,7/6,7/8,5/8,6/8,7";
    let config = plain_soak(
        testbrain("fouls", &["scripted", script]),
        testbrain("legal", &["legal"]),
        Rule::Renju,
        1,
    );
    let (tally, reports) = play(&config);
    assert_faults(&tally, &reports, FaultKind::Foul, 1);
    assert_eq!(tally.count(FaultKind::Illegal), 0);
}

/// The smoke test of the whole soak: four short games of the real brain against itself
/// with every disturbance made frequent. Lateness is judged with a wide margin, since
/// tests share the machine; `scripts/soak.sh` judges it tightly.
#[test]
fn the_real_brain_comes_through_a_short_busy_soak() {
    let mut config = SoakConfig::new(EngineSpec::new(common::pbrain_wuzi()), 4);
    config.seed = 3;
    config.ranges.turn_ms = 30..=60;
    config.ranges.match_ms = 1500..=2500;
    config.late_ms = 1000;
    config.mix = Mix {
        takeback: 0.1,
        restart: 0.02,
        info: 0.1,
        stop: 0.15,
        resync: 0.1,
        fresh: 0.25,
        match_clock: 0.5,
        restart_to_begin: 0.5,
    };
    let dir = common::scratch("soak-smoke");
    for brain in config.brains.iter_mut() {
        brain.dir = Some(dir.clone());
    }
    let (tally, reports) = play(&config);
    eprintln!("{}", tally.summary(config.memory_limit).join("\n"));
    let faults: Vec<_> = reports.iter().flat_map(|r| r.faults.clone()).collect();
    assert!(faults.is_empty(), "{faults:#?}");
    assert_eq!(tally.games, 4);
    assert!(tally.passed(config.memory_limit), "{:?}", tally.summary(0));
    let e = &tally.events;
    assert!(e.takebacks > 0 && e.infos > 0 && e.resyncs > 0, "{e:?}");
    assert!(e.stops + e.late_stops > 0, "{e:?}");
    assert_eq!(tally.info_notes, 0);
}
