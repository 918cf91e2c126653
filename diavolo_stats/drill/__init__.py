"""The reaction drill: sessions, their log, the trial row, the scheduler and the one definition of accuracy.

The length of a session and its limits live here, apart from `session`, so that the
command line can state them in its help without loading pandas.
"""

DEFAULT_TRIALS = 30
"""Trials in a session that asks for neither a number of trials nor minutes."""
MAX_TRIALS_PER_SESSION = 10_000
"""The most trials one session holds, in the terminal, the browser or a synthetic log (hours of drilling)."""
MAX_SESSION_MINUTES = 600.0
"""The longest session `minutes` may ask for: ten hours."""
MIN_LATENCY_MS = 100.0
"""The fastest answer a person gives to a roll: simple reaction times to a light are above 100 ms, and an
answer here needs the roll read and a rule applied. Modelled players answer no faster (`game.players`); the
web drill refuses a faster answer as pressed before the roll was seen, or forged (`web.trials`)."""
MAX_SEED = 2**63 - 1
"""The largest seed a session's rolls and foreperiods are drawn from (and the log's `seed` column holds)."""
