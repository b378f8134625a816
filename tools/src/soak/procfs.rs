//! A brain process as Linux reports it under `/proc/<pid>`: its resident memory now
//! (`VmRSS`) and at its peak (`VmHWM`), and the time its threads spent on a CPU and
//! waiting for one (`schedstat`), which tells a slow brain from a starved one on a busy
//! machine. Elsewhere all are unknown (`None`).

use std::time::Duration;

/// Bytes of the `key` line (`VmRSS`, `VmHWM`, …) of the process's status, if readable.
pub fn status_bytes(pid: u32, key: &str) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    parse_status(&text, key)
}

/// The value of `key:` in a `/proc/<pid>/status` text, which gives sizes in kB.
fn parse_status(text: &str, key: &str) -> Option<u64> {
    text.lines().find_map(|line| {
        let rest = line.strip_prefix(key)?.strip_prefix(':')?;
        let kb: u64 = rest.trim().strip_suffix("kB")?.trim().parse().ok()?;
        Some(kb * 1024)
    })
}

pub fn rss(pid: u32) -> Option<u64> {
    status_bytes(pid, "VmRSS")
}

pub fn peak_rss(pid: u32) -> Option<u64> {
    status_bytes(pid, "VmHWM")
}

/// Time on a CPU and time ready to run but waiting for a CPU, summed over the process's
/// threads since each started.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CpuTimes {
    pub running: Duration,
    pub waiting: Duration,
}

impl CpuTimes {
    /// What was spent between `earlier` and `self` (threads that ended in between make
    /// it an underestimate, never negative).
    pub fn since(self, earlier: CpuTimes) -> CpuTimes {
        CpuTimes {
            running: self.running.saturating_sub(earlier.running),
            waiting: self.waiting.saturating_sub(earlier.waiting),
        }
    }
}

pub fn cpu_times(pid: u32) -> Option<CpuTimes> {
    let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).ok()?;
    let mut total = CpuTimes::default();
    for task in tasks.flatten() {
        let Ok(text) = std::fs::read_to_string(task.path().join("schedstat")) else {
            continue; // the thread ended meanwhile
        };
        if let Some(t) = parse_schedstat(&text) {
            total.running += t.running;
            total.waiting += t.waiting;
        }
    }
    Some(total)
}

/// `schedstat`: nanoseconds on a CPU, nanoseconds waiting on a run queue, time slices.
fn parse_schedstat(text: &str) -> Option<CpuTimes> {
    let mut fields = text.split_whitespace().map(|f| f.parse::<u64>().ok());
    Some(CpuTimes {
        running: Duration::from_nanos(fields.next()??),
        waiting: Duration::from_nanos(fields.next()??),
    })
}

/// Bytes as MiB with one decimal.
pub fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / (1 << 20) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_lines_are_read_in_bytes() {
        let text = "Name:\tpbrain-wuzi\nVmHWM:\t  268144 kB\nVmRSS:\t   12000 kB\n";
        assert_eq!(parse_status(text, "VmHWM"), Some(268_144 * 1024));
        assert_eq!(parse_status(text, "VmRSS"), Some(12_000 * 1024));
        assert_eq!(parse_status(text, "VmData"), None);
        assert_eq!(parse_status("VmRSSX:\t1 kB\n", "VmRSS"), None);
    }

    #[test]
    fn schedstat_gives_running_and_waiting_time() {
        let t = parse_schedstat("151384526 311443186 87\n").unwrap();
        assert_eq!(t.running, Duration::from_nanos(151_384_526));
        assert_eq!(t.waiting, Duration::from_nanos(311_443_186));
        assert_eq!(parse_schedstat("x 1 2"), None);
        let later = CpuTimes {
            running: Duration::from_millis(5),
            waiting: Duration::ZERO,
        };
        assert_eq!(later.since(t).running, Duration::ZERO);
    }

    #[test]
    fn our_own_process_is_measured_on_linux() {
        if cfg!(target_os = "linux") {
            let pid = std::process::id();
            let (now, peak) = (rss(pid).unwrap(), peak_rss(pid).unwrap());
            assert!(now > 0 && peak >= now);
            // Busy work shows as time on a CPU, however long the machine keeps us waiting.
            let before = cpu_times(pid).unwrap();
            let give_up = std::time::Instant::now() + Duration::from_secs(10);
            while cpu_times(pid).unwrap().since(before).running < Duration::from_millis(5) {
                assert!(std::time::Instant::now() < give_up, "no CPU time counted");
            }
        }
    }
}
