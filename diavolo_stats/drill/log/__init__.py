"""The drill log: one CSV row per trial, its schema, the writer and THE reader.

Every drill, analysis and simulation that reads drill logs goes through
`load_logs` (`reader`); every program that writes one goes through
`DrillLog` (`writer`), one `TrialRow` at a time, and both follow the one
rule per column in `schema.CELLS`, so they always agree on the format.
`upgrade_log` (`upgrade`) rewrites a log of schema 1 as schema 2.

The file is UTF-8 CSV, `\\n` line ends, a header line written once when the
file is created, then one line per trial (the columns: `schema`). Each row
is written with its line end in a single `write` under an OS lock on the
log file itself, then fsynced, so a last line without its line end is what
a crash mid-write left: the reader skips it with a warning and the writer
moves it to `<log>.partial`. A file that cannot be read or written raises
`InputError` naming it and what failed, never a bare OSError.
"""

from diavolo_stats.drill.log.reader import FIGURE_COLUMNS, LOADED_COLUMNS, FollowedLog, SkippedRowsWarning, load_logs
from diavolo_stats.drill.log.schema import (
    CELLS,
    COLUMNS,
    COLUMNS_V1,
    HEADER_LINE,
    HEADER_LINE_V1,
    INTERFACES,
    LOG_ENV,
    MAX_PLAYER_LENGTH,
    MAX_SEED,
    NO_ANSWER,
    PLAYER_NAME,
    SAMPLE_LOG,
    SCHEMA_VERSION,
    PlayerName,
    TrialRow,
    TruncatedLogWarning,
    check_outcome,
    check_player,
    csv_line,
    default_log_path,
    format_row,
    is_header_start,
    logged_positions,
    missing_log_message,
    player_problem,
)
from diavolo_stats.drill.log.upgrade import BACKUP_SUFFIX, LogUpgrade, upgrade_log
from diavolo_stats.drill.log.writer import DrillLog, StoredTrial, is_drill_log

__all__ = [
    "BACKUP_SUFFIX", "CELLS", "COLUMNS", "COLUMNS_V1", "FIGURE_COLUMNS", "HEADER_LINE", "HEADER_LINE_V1", "INTERFACES",
    "LOADED_COLUMNS", "LOG_ENV", "MAX_PLAYER_LENGTH", "MAX_SEED", "NO_ANSWER", "PLAYER_NAME", "SAMPLE_LOG",
    "SCHEMA_VERSION", "DrillLog", "FollowedLog", "LogUpgrade", "PlayerName", "SkippedRowsWarning", "StoredTrial",
    "TrialRow", "TruncatedLogWarning", "check_outcome", "check_player", "csv_line", "default_log_path", "format_row",
    "is_drill_log", "is_header_start", "load_logs", "logged_positions", "missing_log_message", "player_problem",
    "upgrade_log",
]
