// Trials on their way to the log. Each answered trial is first kept in the browser's storage
// (localStorage), then posted; it leaves the storage only once the server has answered that it is
// stored (201) or already was (200, a trial sent twice). While the server cannot take it now (the
// requests' policy, request.js: not reached; 503: the disk is full, the log's lock is held; 429: sent
// too fast), the trials stay, and are sent again when the policy says and whenever a page of this app
// is loaded. Any other answer is final for that trial (400: the trial itself is invalid): it is kept
// aside, the page shows why, and the trials behind it go on.

import { RETRY_MS, askAgain, attempt, refusal, retryDelay, sleep } from "./request.js";

const KEY = "diavolo.pending-trials";
const REJECTED_KEY = "diavolo.rejected-trials";

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
    const response = await attempt("/api/trials", trial);
    if (response && (response.status === 201 || response.status === 200)) {
      write(KEY, read(KEY).filter((kept) => !sameTrial(kept, trial)));
      tell({ offline: false });
      continue;
    }
    if (!askAgain(response)) {
      // Refused for good (the server named the field): kept aside, so that it is not lost either.
      const error = (await refusal(response)).message;
      write(REJECTED_KEY, [...read(REJECTED_KEY), { trial, error }]);
      write(KEY, read(KEY).filter((kept) => !sameTrial(kept, trial)));
      tell({ offline: false, rejected: error });
      continue;
    }
    tell({ offline: true });
    retry = setTimeout(flush, retryDelay(response));
    return false;
  }
}

// Resolves once every kept trial has been sent (trying again every RETRY_MS while it cannot).
export async function drain() {
  while (!(await flush())) {
    await sleep(RETRY_MS);
  }
}
