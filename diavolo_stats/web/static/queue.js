// Trials on their way to the log. Each answered trial is first kept in the browser's storage
// (localStorage), then posted; it leaves the storage only once the server has answered that it is
// stored (201) or already was (200, a trial sent twice). While the server cannot be reached, or
// answers that it cannot store the trial now (503: the disk is full, the log's lock is held; 429:
// sent too fast), the trials stay, and are sent again after the server's Retry-After (else a second)
// and whenever a page of this app is loaded. Any other answer is final for that trial (400: the
// trial itself is invalid): it is kept aside, the page shows why, and the trials behind it go on.

const KEY = "diavolo.pending-trials";
const REJECTED_KEY = "diavolo.rejected-trials";
const RETRY_MS = 1000;
const MAX_RETRY_MS = 30000;
// What the server answers when it cannot take a trial now, but may later: send it again.
const AGAIN = new Set([429, 502, 503, 504]);

let sending = null;
let retry = null;
const listeners = new Set();

function read(key) {
  try {
    const value = JSON.parse(localStorage.getItem(key) || "[]");
    return Array.isArray(value) ? value : [];
  } catch {
    return [];
  }
}

function write(key, trials) {
  localStorage.setItem(key, JSON.stringify(trials));
}

function tell(state) {
  for (const listener of listeners) listener({ pending: read(KEY).length, ...state });
}

export function onChange(listener) {
  listeners.add(listener);
}

export function pending() {
  return read(KEY).length;
}

// Keep a trial, then try to send everything kept.
export function add(trial) {
  write(KEY, [...read(KEY), trial]);
  return flush();
}

function sameTrial(a, b) {
  return a.session_id === b.session_id && a.trial === b.trial;
}

// Send every kept trial, oldest first; resolves true once none is left, false if some must wait.
export function flush() {
  if (!sending) {
    sending = sendAll().finally(() => { sending = null; });
  }
  return sending;
}

async function sendAll() {
  clearTimeout(retry);
  for (;;) {
    const [trial] = read(KEY);
    if (trial === undefined) {
      tell({ offline: false });
      return true;
    }
    let response;
    try {
      response = await fetch("/api/trials", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(trial),
        credentials: "same-origin",
      });
    } catch {
      response = null;
    }
    if (response && (response.status === 201 || response.status === 200)) {
      write(KEY, read(KEY).filter((kept) => !sameTrial(kept, trial)));
      tell({ offline: false });
      continue;
    }
    if (response && !AGAIN.has(response.status)) {
      // Refused for good (the server named the field): kept aside, so that it is not lost either.
      let error = `status ${response.status}`;
      try { error = (await response.json()).error; } catch { /* keep the status */ }
      write(REJECTED_KEY, [...read(REJECTED_KEY), { trial, error }]);
      write(KEY, read(KEY).filter((kept) => !sameTrial(kept, trial)));
      tell({ offline: false, rejected: error });
      continue;
    }
    tell({ offline: true });
    const after = Number(response?.headers.get("Retry-After"));
    retry = setTimeout(flush, after > 0 ? Math.min(after * 1000, MAX_RETRY_MS) : RETRY_MS);
    return false;
  }
}

// Resolves once every kept trial has been sent (trying again every RETRY_MS while it cannot).
export async function drain() {
  while (!(await flush())) {
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
  }
}
