"""The drill log: one CSV row per trial, its schema, the writer and the reader.

Every program that reads a drill log goes through `load_logs` (`reader`), every one that writes one through
`DrillLog` (`writer`), and both follow the one rule per column in `schema.CELLS`, so they agree on the format.
`read_rolls` (`roll`) reads the rolls' cells into arrays, once; `upgrade_log` (`upgrade`) rewrites a schema-1
log as schema 2. The name rule (`diavolo_stats.names`) and the log's place (`place`) load no pandas.
"""

from diavolo_stats import lazy_exports

# Each name is loaded from its module on first use (PEP 562): the name rule and the log's place cost no
# pandas, so the drill's settings (and the command line's help) read them without loading the reader.
_LOG_HOMES = {name: f"diavolo_stats.drill.log.{module}" for module, names in {
    "reader": ("FIGURE_COLUMNS", "LOADED_COLUMNS", "FollowedLog", "SkippedRowsWarning", "kept_rows", "load_logs",
               "load_rows"),
    "schema": ("BROWSER_INTERFACE", "CELLS", "COLUMNS", "COLUMNS_V1", "GAME_INTERFACE", "HEADER_LINE",
               "HEADER_LINE_V1", "INTERFACES", "NO_ANSWER", "SCHEMA_VERSION", "TERMINAL_INTERFACE",
               "TrialRow", "TruncatedLogWarning", "check_outcome", "csv_line", "format_row",
               "is_header_start", "logged_positions"),
    "roll": ("ROLL_COLUMNS", "LoggedRolls", "read_rolls"),
    "place": ("LOG_ENV", "SAMPLE_LOG", "default_log_path", "missing_log_message"),
    "upgrade": ("BACKUP_SUFFIX", "LogUpgrade", "upgrade_log"),
    "writer": ("DrillLog", "StoredTrial", "is_drill_log"),
}.items() for name in names} | {"MAX_SEED": "diavolo_stats.drill"} | {
    name: "diavolo_stats.names" for name in ("MAX_PLAYER_LENGTH", "PLAYER_NAME", "check_player", "player_problem")}

__all__ = sorted(_LOG_HOMES)
__getattr__, __dir__ = lazy_exports(__name__, _LOG_HOMES)
