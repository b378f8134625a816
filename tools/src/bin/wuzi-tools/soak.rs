//! `wuzi-tools soak …`: plays the soak (see `wuzi_tools::soak`) and prints one line per
//! game, a progress line every 50 games and the summary; transcripts of games with a
//! fault go to `--log-dir`. Exit code 0 when nothing failed, 1 otherwise, 2 on bad
//! arguments.

use std::ops::RangeInclusive;
use std::path::PathBuf;
use wuzi::types::Rule;
use wuzi_tools::matchrunner::engine::EngineSpec;
use wuzi_tools::soak::game::{HANG_MS, LATE_PERCENT};
use wuzi_tools::soak::plan::Mix;
use wuzi_tools::soak::procfs::mib;
use wuzi_tools::soak::tally::{duration_text, game_lines, transcript_text};
use wuzi_tools::soak::{run as play_soak, SoakConfig};

pub const USAGE: &str = "\
wuzi-tools soak [--brain PATH] [--games N] [--turn-ms MS|LO-HI] [--match-ms MS|LO-HI]
                 [--seed S] [--from K] [--jobs J] [--rules R,R…] [--sizes N,N…] [--dir DIR]
                 [--log-dir DIR] [--late-ms MS] [--plain]
                 the brain (default: pbrain-wuzi beside this program) against itself,
                 N games (default 1000) of every rule at sizes 15 and 20, turn time
                 drawn from LO-HI ms (default 50-200), a quarter of the games with a
                 match clock (default 2000-6000 ms), with TAKEBACK, RESTART, YXSTOP and
                 INFO changes mixed in (--plain: none); every answer judged; the brains
                 run in DIR; transcripts of games with a fault go to --log-dir; --from K
                 starts at game K (a game's setting depends on the seed and its number);
                 a move is late after its limit + 10 % + MS (default 50)";

/// Games between two progress lines.
const PROGRESS_EVERY: usize = 50;

pub fn run(args: &[String]) -> u8 {
    let (config, log_dir) = match parse(args) {
        Ok(parsed) => parsed,
        Err(e) => {
            eprintln!("{e}\nusage: {USAGE}");
            return 2;
        }
    };
    println!(
        "soak: {} games (from game {}) of {} against itself, seed {}, {} at once; rules {}, sizes {}; turn \
         {}-{} ms; a move is late after its limit + {LATE_PERCENT} % + {} ms, a crash \
         after its limit + {HANG_MS} ms",
        config.games,
        config.first,
        config.brains[0].path.display(),
        config.seed,
        config.jobs,
        config.ranges.rules.iter().map(|r| r.name()).collect::<Vec<_>>().join(","),
        config.ranges.sizes.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(","),
        config.ranges.turn_ms.start(),
        config.ranges.turn_ms.end(),
        config.late_ms
    );
    let tally = play_soak(&config, &mut |report, tally| {
        for line in game_lines(report) {
            println!("{line}");
        }
        if let (Some(dir), false) = (&log_dir, report.faults.is_empty()) {
            let path = dir.join(format!("game-{}.log", report.plan.number));
            let written = std::fs::create_dir_all(dir)
                .and_then(|_| std::fs::write(&path, transcript_text(report, config.seed)));
            match written {
                Ok(()) => println!("    transcript: {}", path.display()),
                Err(e) => eprintln!("cannot write {}: {e}", path.display()),
            }
        }
        if tally.games % PROGRESS_EVERY == 0 && tally.games < config.games {
            let peak = tally.peak_rss.map_or("-".to_string(), |(b, _, _)| mib(b));
            println!(
                "-- {} of {} games, {} with a fault, peak VmHWM {peak}, {}",
                tally.games,
                config.games,
                tally.failed_games.len(),
                duration_text(tally.elapsed)
            );
        }
    });
    for line in tally.summary(config.memory_limit) {
        println!("{line}");
    }
    u8::from(!tally.passed(config.memory_limit))
}

/// The command line: `(config, log_dir)`.
fn parse(args: &[String]) -> Result<(SoakConfig, Option<PathBuf>), String> {
    let mut config = SoakConfig::new(EngineSpec::new(default_brain()), 1000);
    let mut brain_dir = None;
    let mut log_dir = None;
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        if flag == "--plain" {
            config.mix = Mix::none();
            continue;
        }
        let value = it.next().ok_or_else(|| format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--brain" => config.brains[0] = EngineSpec::new(value),
            "--games" => config.games = number(flag, value)?,
            "--seed" => config.seed = number(flag, value)?,
            "--from" => config.first = number::<usize>(flag, value)?.max(1),
            "--jobs" => config.jobs = number::<usize>(flag, value)?.clamp(1, 64),
            "--turn-ms" => config.ranges.turn_ms = range(flag, value, 1)?,
            "--match-ms" => config.ranges.match_ms = range(flag, value, 1)?,
            "--rules" => config.ranges.rules = rules(value)?,
            "--sizes" => config.ranges.sizes = sizes(value)?,
            "--late-ms" => config.late_ms = number(flag, value)?,
            "--dir" => brain_dir = Some(PathBuf::from(value)),
            "--log-dir" => log_dir = Some(PathBuf::from(value)),
            _ => return Err(format!("unknown option {flag}")),
        }
    }
    config.brains[0].dir = brain_dir;
    let mut second = config.brains[0].clone();
    second.name = format!("{}-2", second.name);
    config.brains[1] = second;
    Ok((config, log_dir))
}

/// `pbrain-wuzi` in the folder of this executable (where cargo builds both).
fn default_brain() -> PathBuf {
    let name = format!("pbrain-wuzi{}", std::env::consts::EXE_SUFFIX);
    std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|dir| dir.join(&name)))
        .unwrap_or_else(|| PathBuf::from(name))
}

fn number<T: std::str::FromStr>(flag: &str, value: &str) -> Result<T, String> {
    value
        .parse()
        .map_err(|_| format!("{flag} needs a non-negative number, not {value:?}"))
}

/// `MS` or `LO-HI`, at least `least`.
fn range(flag: &str, value: &str, least: u64) -> Result<RangeInclusive<u64>, String> {
    let (lo, hi) = value.split_once('-').unwrap_or((value, value));
    let (lo, hi): (u64, u64) = (number(flag, lo)?, number(flag, hi)?);
    if lo < least || hi < lo {
        return Err(format!(
            "{flag} {value}: want MS or LO-HI with {least} <= LO <= HI"
        ));
    }
    Ok(lo..=hi)
}

fn rules(value: &str) -> Result<Vec<Rule>, String> {
    value
        .split(',')
        .map(|r| Rule::parse(r).ok_or(format!("unknown rule {r:?}")))
        .collect()
}

fn sizes(value: &str) -> Result<Vec<usize>, String> {
    value
        .split(',')
        .map(|s| match s.trim().parse() {
            Ok(n) if (5..=32).contains(&n) => Ok(n),
            _ => Err(format!("bad board size {s:?} (5 to 32)")),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn options_set_the_config_and_both_brains() {
        let (config, log_dir) = parse(&args(&[
            "--brain",
            "/x/pbrain-a",
            "--games",
            "4",
            "--turn-ms",
            "20-40",
            "--match-ms",
            "3000",
            "--rules",
            "renju,caro",
            "--sizes",
            "15",
            "--dir",
            "/tmp/d",
            "--log-dir",
            "/tmp/l",
            "--seed",
            "9",
            "--from",
            "7",
            "--late-ms",
            "300",
            "--plain",
        ]))
        .unwrap();
        assert_eq!(config.games, 4);
        assert_eq!(config.seed, 9);
        assert_eq!(config.first, 7);
        assert_eq!(config.late_ms, 300);
        assert_eq!(config.ranges.turn_ms, 20..=40);
        assert_eq!(config.ranges.match_ms, 3000..=3000);
        assert_eq!(config.ranges.rules, vec![Rule::Renju, Rule::Caro]);
        assert_eq!(config.ranges.sizes, vec![15]);
        assert_eq!(config.mix, Mix::none());
        assert_eq!(log_dir, Some(PathBuf::from("/tmp/l")));
        for brain in &config.brains {
            assert_eq!(brain.path, PathBuf::from("/x/pbrain-a"));
            assert_eq!(brain.dir, Some(PathBuf::from("/tmp/d")));
        }
        assert_ne!(config.brains[0].name, config.brains[1].name);
    }

    #[test]
    fn bad_options_are_refused() {
        for bad in [
            &["--games"][..],
            &["--games", "x"],
            &["--turn-ms", "200-50"],
            &["--turn-ms", "0"],
            &["--rules", "chess"],
            &["--sizes", "40"],
            &["--bogus", "1"],
        ] {
            assert!(parse(&args(bad)).is_err(), "{bad:?}");
        }
    }
}
