//! `pbrain-wuzi bench [DEPTH]`: the fixed, deterministic workload of `wuzi::bench` and
//! the threat-search corpus, printed. The last two lines (signature, `Bench: <nodes>`)
//! are the same for the same binary on every machine; the speeds vary with it.

use wuzi::bench::{make_undo_rate, search_positions, DEPTH, POSITIONS};
use wuzi::threat::bench_corpus;

/// Passes over the threat-search corpus (each pass times every position at VCF and VCT).
const THREAT_ROUNDS: u32 = 3;

pub fn run(args: &[String]) -> u8 {
    let depth = match args {
        [] => DEPTH,
        [d] => match d.parse::<i32>() {
            Ok(d) if (1..=30).contains(&d) => d,
            _ => return usage(),
        },
        _ => return usage(),
    };
    println!("make+undo/s : {:.0}", make_undo_rate());
    print!("{}", bench_corpus(THREAT_ROUNDS));
    let (result, elapsed) = search_positions(depth);
    let ms = elapsed.as_millis().max(1) as u64;
    println!("positions   : {} at depth {depth}", POSITIONS.len());
    println!("time ms     : {ms}");
    println!("nodes/s     : {}", result.nodes * 1000 / ms);
    println!("signature   : {:016x}", result.signature);
    println!("Bench: {}", result.nodes);
    0
}

fn usage() -> u8 {
    eprintln!("usage: pbrain-wuzi bench [DEPTH 1..30]");
    2
}
