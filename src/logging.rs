//! Logging to a file only, through `log` + `simplelog`.
//!
//! stdout belongs to the protocol and Piskvork merges stderr into the same pipe, so a log
//! line or a panic message there is a bad reply that loses the game: this module never
//! writes to either. Logging is off by default; when it cannot start (unwritable folder)
//! it stays off and returns a warning for the protocol layer's next `MESSAGE`.
//!
//! The file lives in the brain's own folder: `<INFO folder>/wuzi/` once the manager has
//! sent `INFO folder`, else beside the executable. Since `INFO folder` arrives after
//! start-up, the installed logger can be moved to another folder later.
//!
//! Gomocup loses a game when the persistent folder exceeds 70 MB, so a log file stops
//! growing at [`MAX_LOG_BYTES`] and only one previous run is kept (`<file>.old`).

use crate::config::Config;
use log::{LevelFilter, Log, Metadata, Record};
use once_cell::sync::OnceCell;
use simplelog::WriteLogger;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::RwLock;

/// The brain's own subfolder of `INFO folder` (PROTOCOL.md §3: a brain may use only its own).
pub const SUBFOLDER: &str = "wuzi";

/// The level names `log.level` accepts, quietest first.
pub const LEVEL_NAMES: [&str; 6] = ["off", "error", "warn", "info", "debug", "trace"];

/// A log file stops growing here: with the `.old` copy at most twice this in the folder,
/// well under Gomocup's 70 MB limit.
pub const MAX_LOG_BYTES: u64 = 16 * 1024 * 1024;

const DEFAULT_FILE_NAME: &str = "wuzi.log";

/// What to log and where, from the config.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogSettings {
    pub level: LevelFilter,
    /// A plain file name (no folder part).
    pub file_name: String,
}

impl Default for LogSettings {
    fn default() -> LogSettings {
        LogSettings {
            level: LevelFilter::Off,
            file_name: DEFAULT_FILE_NAME.to_string(),
        }
    }
}

impl LogSettings {
    /// Reads `log.level` and `log.file`; bad values keep the defaults and leave a warning
    /// in the config.
    pub fn from_config(config: &Config) -> LogSettings {
        let level = match config.get_choice("log.level", &LEVEL_NAMES, "off") {
            "error" => LevelFilter::Error,
            "warn" => LevelFilter::Warn,
            "info" => LevelFilter::Info,
            "debug" => LevelFilter::Debug,
            "trace" => LevelFilter::Trace,
            _ => LevelFilter::Off,
        };
        let file_name = config.get_str("log.file", DEFAULT_FILE_NAME);
        let file_name = if is_plain_file_name(file_name) {
            file_name.to_string()
        } else {
            config.add_warning(format!(
                "log.file = '{file_name}' must be a plain file name; {DEFAULT_FILE_NAME} used"
            ));
            DEFAULT_FILE_NAME.to_string()
        };
        LogSettings { level, file_name }
    }
}

/// A name that stays inside the log folder: no separators, not `.` or `..`.
fn is_plain_file_name(name: &str) -> bool {
    !name.is_empty() && name != "." && name != ".." && !name.contains(['/', '\\', ':'])
}

/// The folder for the log: `<info_folder>/wuzi` when the manager gave one, else the
/// executable's folder.
pub fn log_dir(info_folder: Option<&Path>, exe_dir: Option<&Path>) -> Option<PathBuf> {
    match info_folder {
        Some(folder) => Some(folder.join(SUBFOLDER)),
        None => exe_dir.map(Path::to_path_buf),
    }
}

/// A file that silently stops growing at a size limit (after one marker line), so a
/// chatty level cannot fill the brain's folder.
struct CappedFile {
    file: File,
    written: u64,
    limit: u64,
}

impl Write for CappedFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.written >= self.limit {
            return Ok(buf.len());
        }
        if self.written + buf.len() as u64 > self.limit {
            self.written = self.limit;
            self.file
                .write_all(b"\n[log size limit reached; further lines dropped]\n")?;
            return Ok(buf.len());
        }
        self.file.write_all(buf)?;
        self.written += buf.len() as u64;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

/// The open log file and the path it was opened at.
struct Target {
    path: PathBuf,
    logger: Box<WriteLogger<CappedFile>>,
}

/// A `log::Log` writing through simplelog's `WriteLogger` into one file whose folder can
/// change while running. With no file open, records are dropped.
pub struct FileLog {
    settings: LogSettings,
    size_limit: u64,
    target: RwLock<Option<Target>>,
}

impl FileLog {
    pub fn new(settings: LogSettings) -> FileLog {
        FileLog::with_size_limit(settings, MAX_LOG_BYTES)
    }

    /// As [`FileLog::new`] with another size limit per file (for tests).
    pub fn with_size_limit(settings: LogSettings, size_limit: u64) -> FileLog {
        FileLog {
            settings,
            size_limit,
            target: RwLock::new(None),
        }
    }

    pub fn level(&self) -> LevelFilter {
        self.settings.level
    }

    /// Starts writing to `<dir>/<file name>` (creating `dir`), the previous run's file
    /// kept as `<file name>.old`. Returns the path, `None` when the level is off (no file
    /// is created then), or a description of why the file cannot be written — logging is
    /// then off until a later call succeeds.
    pub fn open_in(&self, dir: &Path) -> Result<Option<PathBuf>, String> {
        if self.settings.level == LevelFilter::Off {
            return Ok(None);
        }
        let path = dir.join(&self.settings.file_name);
        let opened = self.open_file(dir, &path);
        let Ok(mut target) = self.target.write() else {
            return Err("log: internal lock poisoned; logging off".to_string());
        };
        match opened {
            Ok(file) => {
                let logger = WriteLogger::new(self.settings.level, log_format(), file);
                *target = Some(Target {
                    path: path.clone(),
                    logger,
                });
                Ok(Some(path))
            }
            Err(e) => {
                *target = None;
                Err(format!(
                    "log: cannot write {}: {e}; logging off",
                    path.display()
                ))
            }
        }
    }

    fn open_file(&self, dir: &Path, path: &Path) -> io::Result<CappedFile> {
        fs::create_dir_all(dir)?;
        if path.exists() {
            let mut old = path.as_os_str().to_owned();
            old.push(".old");
            // Best effort: if the old copy cannot be replaced, appending is still fine.
            let _ = fs::rename(path, PathBuf::from(old));
        }
        // Append mode so the panic hook's own handle adds to the end, never overwrites.
        let file = OpenOptions::new().create(true).append(true).open(path)?;
        let written = file.metadata().map(|m| m.len()).unwrap_or(0);
        Ok(CappedFile {
            file,
            written,
            limit: self.size_limit,
        })
    }

    /// The file being written, if any.
    pub fn path(&self) -> Option<PathBuf> {
        let target = self.target.read().ok()?;
        target.as_ref().map(|t| t.path.clone())
    }
}

/// Time, level, thread and target on each line: enough to follow a search across threads.
fn log_format() -> simplelog::Config {
    simplelog::ConfigBuilder::new()
        .set_time_format_rfc3339()
        .set_thread_level(LevelFilter::Error)
        .set_target_level(LevelFilter::Error)
        .build()
}

impl Log for FileLog {
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        metadata.level() <= self.settings.level
    }

    fn log(&self, record: &Record<'_>) {
        if let Ok(target) = self.target.read() {
            if let Some(target) = target.as_ref() {
                target.logger.log(record);
            }
        }
    }

    fn flush(&self) {
        if let Ok(target) = self.target.read() {
            if let Some(target) = target.as_ref() {
                target.logger.flush();
            }
        }
    }
}

/// The process's logger once [`init`] ran with a level other than off.
static LOGGER: OnceCell<FileLog> = OnceCell::new();

/// Installs the file logger for this process and opens its file in `dir` (see
/// [`log_dir`]). Never fails the engine: returns a warning for a `MESSAGE` when the file
/// cannot be written (logging stays off). With the level off nothing is installed and no
/// file is created. A second call only moves the file to `dir`.
pub fn init(settings: LogSettings, dir: Option<&Path>) -> Option<String> {
    if settings.level == LevelFilter::Off {
        return None;
    }
    let level = settings.level;
    let mut newly_installed = false;
    let logger = LOGGER.get_or_init(|| {
        newly_installed = true;
        FileLog::new(settings)
    });
    if newly_installed {
        if log::set_logger(logger).is_err() {
            return Some("log: another logger is already installed; logging off".to_string());
        }
        log::set_max_level(level);
    }
    let Some(dir) = dir else {
        return Some("log: no folder to write the log in; logging off".to_string());
    };
    logger.open_in(dir).err()
}

/// Moves the log under `<folder>/wuzi/` once the manager sends `INFO folder`. Does
/// nothing when logging is off; returns a warning when the new file cannot be written.
pub fn use_info_folder(folder: &Path) -> Option<String> {
    let logger = LOGGER.get()?;
    if logger
        .path()
        .is_some_and(|p| p.starts_with(folder.join(SUBFOLDER)))
    {
        return None;
    }
    logger.open_in(&folder.join(SUBFOLDER)).err()
}

/// The file the process logs to, if logging is on and its file is open.
pub fn current_path() -> Option<PathBuf> {
    LOGGER.get()?.path()
}

/// Replaces the default panic hook (which prints to stderr, i.e. into the protocol pipe)
/// with one that appends the panic to the log file, and writes nothing when logging is
/// off. The hook uses its own file handle rather than the logger, so a panic raised
/// while the logger holds its lock cannot deadlock.
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let Some(path) = current_path() else {
            return;
        };
        let thread = std::thread::current();
        let location = info
            .location()
            .map(|l| format!("{}:{}", l.file(), l.line()))
            .unwrap_or_default();
        let message = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "(no message)".to_string());
        let backtrace = std::backtrace::Backtrace::force_capture();
        let text = format!(
            "PANIC in thread '{}' at {location}: {message}\n{backtrace}\n",
            thread.name().unwrap_or("unnamed")
        );
        if let Ok(mut file) = OpenOptions::new().append(true).open(path) {
            let _ = file.write_all(text.as_bytes());
        }
    }));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ConfigSource;
    use log::Level;

    fn temp_folder(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("wuzi-log-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        dir
    }

    fn settings(level: LevelFilter) -> LogSettings {
        LogSettings {
            level,
            file_name: "test.log".to_string(),
        }
    }

    fn emit(logger: &FileLog, level: Level, text: &str) {
        logger.log(
            &Record::builder()
                .args(format_args!("{text}"))
                .level(level)
                .target("wuzi::test")
                .build(),
        );
        logger.flush();
    }

    fn read(path: &Path) -> String {
        fs::read_to_string(path).unwrap_or_default()
    }

    #[test]
    fn a_line_lands_in_the_file_and_finer_levels_do_not() {
        let dir = temp_folder("line");
        let logger = FileLog::new(settings(LevelFilter::Info));
        let path = logger.open_in(&dir).ok().flatten().unwrap_or_default();
        assert_eq!(path, dir.join("test.log"));
        emit(&logger, Level::Info, "searched depth 12");
        emit(&logger, Level::Debug, "too fine to keep");
        let text = read(&path);
        assert!(text.contains("searched depth 12"), "{text}");
        assert!(!text.contains("too fine"), "{text}");
        let _ = fs::remove_dir_all(dir);
    }

    #[test]
    fn level_off_creates_and_writes_nothing() {
        let dir = temp_folder("off");
        let logger = FileLog::new(settings(LevelFilter::Off));
        assert_eq!(logger.open_in(&dir), Ok(None));
        emit(&logger, Level::Error, "must not appear");
        assert!(
            !dir.exists(),
            "no folder or file is created when logging is off"
        );
        assert_eq!(init(settings(LevelFilter::Off), Some(&dir)), None);
        assert!(!dir.exists());
    }

    #[test]
    fn an_unwritable_folder_turns_logging_off_with_a_warning() {
        let dir = temp_folder("blocked");
        fs::create_dir_all(&dir).expect("temp dir is writable");
        let blocker = dir.join("a-file");
        fs::write(&blocker, "x").expect("temp file");
        let logger = FileLog::new(settings(LevelFilter::Trace));
        // A folder cannot be created under a file.
        let warning = logger
            .open_in(&blocker.join("sub"))
            .err()
            .unwrap_or_default();
        assert!(warning.contains("logging off"), "{warning}");
        assert_eq!(logger.path(), None);
        emit(&logger, Level::Error, "dropped quietly");
        let _ = fs::remove_dir_all(dir);
    }

    #[test]
    fn the_log_can_move_to_the_info_folder() {
        let first = temp_folder("first");
        let second = temp_folder("second");
        let logger = FileLog::new(settings(LevelFilter::Info));
        let _ = logger.open_in(&first);
        emit(&logger, Level::Info, "before INFO folder");
        let _ = logger.open_in(&second);
        emit(&logger, Level::Info, "after INFO folder");
        let before = read(&first.join("test.log"));
        let after = read(&second.join("test.log"));
        assert!(before.contains("before") && !before.contains("after"));
        assert!(after.contains("after") && !after.contains("before"));
        let _ = fs::remove_dir_all(first);
        let _ = fs::remove_dir_all(second);
    }

    #[test]
    fn the_previous_run_is_kept_once() {
        let dir = temp_folder("rotate");
        for run in ["run one", "run two", "run three"] {
            let logger = FileLog::new(settings(LevelFilter::Info));
            let _ = logger.open_in(&dir);
            emit(&logger, Level::Info, run);
        }
        assert!(read(&dir.join("test.log")).contains("run three"));
        let old = read(&dir.join("test.log.old"));
        assert!(old.contains("run two") && !old.contains("run one"), "{old}");
        let _ = fs::remove_dir_all(dir);
    }

    #[test]
    fn a_file_stops_growing_at_its_size_limit() {
        let dir = temp_folder("cap");
        let logger = FileLog::with_size_limit(settings(LevelFilter::Info), 2_000);
        let path = logger.open_in(&dir).ok().flatten().unwrap_or_default();
        for i in 0..200 {
            emit(&logger, Level::Info, &format!("line number {i}"));
        }
        let text = read(&path);
        assert!(text.contains("line number 0"));
        assert!(!text.contains("line number 199"));
        assert!(text.len() <= 2_000 + 100, "{}", text.len());
        let _ = fs::remove_dir_all(dir);
    }

    #[test]
    fn the_folder_is_the_wuzi_subfolder_of_info_folder_else_the_executables() {
        let info = Path::new("/data/brains");
        let exe = Path::new("/opt/wuzi");
        assert_eq!(log_dir(Some(info), Some(exe)), Some(info.join(SUBFOLDER)));
        assert_eq!(log_dir(None, Some(exe)), Some(exe.to_path_buf()));
        assert_eq!(log_dir(None, None), None);
    }

    #[test]
    fn settings_come_from_the_config() {
        let defaults = LogSettings::from_config(&Config::embedded());
        assert_eq!(defaults, LogSettings::default());
        let config = Config::from_text(
            "[log]\nlevel = Debug\nfile = a.log\n",
            ConfigSource::Embedded,
        );
        let s = LogSettings::from_config(&config);
        assert_eq!(
            (s.level, s.file_name.as_str()),
            (LevelFilter::Debug, "a.log")
        );
        assert_eq!(config.take_warning(), None);

        let config = Config::from_text(
            "log.level = loud\nlog.file = ../x.log\n",
            ConfigSource::Embedded,
        );
        assert_eq!(LogSettings::from_config(&config), LogSettings::default());
        let warning = config.take_warning().unwrap_or_default();
        assert!(
            warning.contains("loud") && warning.contains("../x.log"),
            "{warning}"
        );
    }
}
