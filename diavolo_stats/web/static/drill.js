// The browser drill: setup, then trials (fixation mark, random foreperiod, the roll, one answer,
// feedback), then the session's summary. The page's state is kept on <body> as data-state (setup,
// fixation, stimulus, feedback, summary) and, while a roll is shown, data-onset.
//
// Timing: the onset and latency of onset.js, as on the Play page and in a room.

import { drawAnswerButtons, onAnswerButton } from "./answers.js";
import { latencyMs, markOnset, onsetTime } from "./onset.js";
import { setState, setStatus, show } from "./page.js";
import * as queue from "./queue.js";
import { Abandoned, requestJson } from "./request.js";
import { served } from "./served.js";
import { clearRoll, commandBanner, drawRoll, setTable, showFixation } from "./table.js";

const SETUP_KEY = "diavolo.drill-setup";
// The library's defaults and limits, served in the page (web/pages.py: drill_settings).
const SETTINGS = served("drill-settings");
const { quit_key: QUIT_KEY, help_key: HELP_KEY, no_answer: NO_ANSWER } = SETTINGS;

const svg = document.querySelector("#table");
const params = new URLSearchParams(location.search);

// A number from the page's query, if it is one within the library's limit, else the library's default.
function asked(name, { default: fallback, most }) {
  const value = Number(params.get(name) ?? NaN);
  return params.has(name) && Number.isFinite(value) && value >= 0 && value <= most ? value : fallback;
}

// For tests and experiments, as the terminal drill's flags: ?foreperiod_ms=MIN,MAX&feedback_ms=MS&timeout_s=S
// (the server checks the foreperiod, which it draws).
const timing = {
  foreperiod: params.get("foreperiod_ms"),
  feedbackMs: asked("feedback_ms", SETTINGS.feedback_ms),
  timeoutMs: 1000 * asked("timeout_s", SETTINGS.timeout_s),
};

let session = null; // the running session, or null
let trial = null; // the trial on screen: its roll, phase, timers

function randomId() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function randomSeed() {
  // A whole number below 2**53, so that JSON and JavaScript keep it exact.
  const [high, low] = crypto.getRandomValues(new Uint32Array(2));
  return (high & 0x1fffff) * 2 ** 32 + low;
}

// ------------------------------------------------------------------------------------------ setup

const form = document.querySelector("#setup-form");

function loadSetup() {
  let saved = {};
  try { saved = JSON.parse(localStorage.getItem(SETUP_KEY) || "{}"); } catch { saved = {}; }
  for (const [name, value] of Object.entries(saved)) {
    const input = form.elements[name];
    if (!input) continue;
    if (name === "variant" && ![...input.options].some((option) => option.value === value)) continue; // not offered now
    if (input.type === "checkbox") input.checked = Boolean(value);
    else input.value = value;
  }
  if (params.get("player")) form.elements.player.value = params.get("player");
  if (params.get("adaptive")) form.elements.adaptive.checked = true; // the progress page's "drill your weak spots"
  showKeys();
}

// The keys of the game chosen: each game offered has its own (its colors and grey, SETTINGS.keys), named
// key_<game>_<answer>; only the chosen game's are shown and sent.
function showKeys() {
  for (const fieldset of form.querySelectorAll("fieldset.keys")) {
    const chosen = fieldset.dataset.variant === form.elements.variant.value;
    fieldset.hidden = !chosen;
    fieldset.disabled = !chosen;
  }
}

form.elements.variant.addEventListener("change", showKeys);

function readSetup() {
  const data = new FormData(form);
  const variant = String(data.get("variant"));
  const prefix = `key_${variant}_`;
  const keys = {};
  for (const [name, value] of data.entries()) {
    if (name.startsWith(prefix)) keys[name.slice(prefix.length)] = String(value).toLowerCase();
  }
  const setup = {
    player: String(data.get("player") || ""),
    variant,
    command_first: data.get("command_first") !== null,
    adaptive: data.get("adaptive") !== null,
    trials: Number(data.get("trials")),
    keys,
  };
  const saved = { player: setup.player, variant: setup.variant, command_first: setup.command_first,
    adaptive: setup.adaptive, trials: setup.trials };
  for (const [answer, key] of Object.entries(keys)) saved[`${prefix}${answer}`] = key;
  localStorage.setItem(SETUP_KEY, JSON.stringify(saved));
  return setup;
}

function checkSetup(setup) {
  if (!setup.player.trim()) return "player: give a name";
  const { least, most } = SETTINGS.trials;
  if (!(Number.isInteger(setup.trials) && setup.trials >= least && setup.trials <= most)) {
    return `trials: ${least} to ${most.toLocaleString("en")}`;
  }
  const used = Object.values(setup.keys);
  if (used.some((key) => key.length !== 1 || key === " ")) return "keys: one key per answer";
  if (used.includes(QUIT_KEY) || used.includes(HELP_KEY)) return `keys: ${QUIT_KEY} quits and ${HELP_KEY} is help`;
  if (new Set(used).size !== used.length) return "keys: each answer needs its own key";
  return "";
}

form.addEventListener("submit", (event) => {
  event.preventDefault();
  const setup = readSetup();
  const problem = checkSetup(setup);
  document.querySelector("#setup-error").textContent = problem;
  if (!problem) start(setup);
});

// -------------------------------------------------------------------------------------- the session

function start(setup) {
  session = { ...setup, id: randomId(), seed: randomSeed(), number: 1, shown: 0, attempt: 0, rolls: new Map() };
  document.querySelector("#player-name").textContent = setup.player;
  drawAnswerButtons(document.querySelector("#answers"), setup.keys);
  show("stage");
  nextTrial();
}

function rollUrl(number, attempt) {
  const query = new URLSearchParams({
    variant: session.variant, command_first: String(session.command_first), adaptive: String(session.adaptive),
    player: session.player, seed: String(session.seed), trial: String(number), attempt: String(attempt),
  });
  if (timing.foreperiod) query.set("foreperiod_ms", timing.foreperiod);
  return `/api/roll?${query}`;
}

function waiting() {
  setStatus("waiting for the server to answer…");
}

// The roll of trial `number`, fetched once (and asked for again, by the requests' policy, while the session is on).
function fetchRoll(number, attempt) {
  const key = `${number}/${attempt}`;
  if (!session.rolls.has(key)) {
    const owner = session;
    session.rolls.set(key, requestJson(rollUrl(number, attempt), { wanted: () => session === owner, onWait: waiting }));
  }
  return session.rolls.get(key);
}

function progressText() {
  return `trial ${Math.min(session.shown + 1, session.trials)} of ${session.trials}`;
}

async function nextTrial() {
  const owner = session;
  if (session.shown >= session.trials) return finish();
  const number = session.number;
  let roll;
  try {
    roll = await fetchRoll(number, session.attempt);
  } catch (error) {
    if (session === owner && !(error instanceof Abandoned)) fail(error.message);
    return;
  }
  if (session !== owner || trial?.number === number) return;
  fetchRoll(number + 1, 0).catch(() => {}); // ready for the next trial, even if the server goes away
  setStatus("");
  setTable(svg, roll.game.table);
  trial = { number, roll, phase: "fixation", timers: [] };
  // Feedback belongs to its roll: gone before the next fixation mark.
  document.querySelector("#verdict").textContent = "";
  document.querySelector("#reason").textContent = "";
  document.querySelector("#progress").textContent = progressText();
  clearRoll(svg);
  showFixation(svg, true);
  const banner = document.querySelector("#command-banner");
  if (roll.command_first) {
    drawRoll(svg, roll, { dice: false });
    banner.textContent = commandBanner(roll.commands[roll.command]);
  } else {
    banner.textContent = "get ready…";
  }
  setState("fixation");
  trial.timers.push(setTimeout(() => showStimulus(trial), roll.foreperiod_ms));
}

function showStimulus(current) {
  if (current !== trial) return;
  const { roll } = current;
  showFixation(svg, false);
  drawRoll(svg, roll);
  document.querySelector("#command-banner").textContent = commandBanner(roll.commands[roll.command]);
  markOnset(current, () => current === trial, () => {
    current.timers.push(setTimeout(() => timedOut(current), timing.timeoutMs));
  });
}

function stopTimers(current) {
  for (const timer of current.timers) clearTimeout(timer);
  current.timers = [];
}

// What happened, as it happened: the server's judged_trial works out the rest (a timeout: no answer, not too early).
function record(current, answer, latencyMs, { tooEarly = false } = {}) {
  const { roll } = current;
  const sent = queue.add({
    session_id: session.id, trial: current.number, player: session.player, variant: roll.variant,
    command_first: roll.command_first, command: roll.command, dice: roll.dice, positions: roll.positions,
    answer, latency_ms: latencyMs,
    too_early: tooEarly, foreperiod_ms: roll.foreperiod_ms, seed: session.seed,
    timestamp: onsetTime(current),
  });
  session.number += 1;
  session.attempt = 0;
  return sent;
}

function answered(answer, timeStamp) {
  const current = trial;
  if (!current || !session) return;
  // Faster than a person can read the roll: the key was pressed before the roll was seen, which is too early.
  const anticipated = current.phase === "stimulus" && timeStamp - current.onset < SETTINGS.min_latency_ms;
  if (current.phase === "fixation" || anticipated) {
    // Too early: logged as its own row (no answer, no latency), and the trial is run again with a new roll.
    stopTimers(current);
    current.phase = "feedback";
    record(current, NO_ANSWER, null, { tooEarly: true });
    feedback("TOO EARLY", anticipated ? "faster than anyone reads the dice: that key was pressed before you saw "
      + "them; it did not count, and a new roll follows" : "wait for the dice; that key did not count, and a new "
      + "roll follows", "early");
    return;
  }
  if (current.phase !== "stimulus") return;
  stopTimers(current);
  current.phase = "feedback";
  const latency = latencyMs(current, timeStamp);
  record(current, answer, latency);
  session.shown += 1;
  // An ambiguous closest accepts two answers: the strictly nearest color, and grey (the table's call).
  const { accepted } = current.roll;
  const right = accepted.includes(answer);
  const also = accepted.filter((name) => name !== answer);
  const time = `${Math.round(latency)} ms`; // the time logged, in whole ms
  feedback(right ? `RIGHT: ${answer}, ${time}${also.length ? ` (${also.join(", ")} also counted)` : ""}`
    : `WRONG: you said ${answer}, ${time}; the answer is ${accepted.join(" or ")}`, current.roll.reason,
  right ? "right" : "wrong");
}

function timedOut(current) {
  if (current !== trial || current.phase !== "stimulus") return;
  current.phase = "feedback";
  record(current, NO_ANSWER, null);
  session.shown += 1;
  feedback(`NO ANSWER within ${timing.timeoutMs / 1000} s: the answer is ${current.roll.accepted.join(" or ")}`,
    current.roll.reason, "wrong");
}

function feedback(verdict, reason, kind) {
  const current = trial;
  setState("feedback");
  const verdictNode = document.querySelector("#verdict");
  verdictNode.textContent = verdict;
  verdictNode.className = kind;
  document.querySelector("#reason").textContent = reason;
  current.timers.push(setTimeout(() => {
    if (current === trial) nextTrial();
  }, timing.feedbackMs));
}

// The trial on screen is dropped (not logged): quitting, or help asked for in the middle of it.
function abandon() {
  if (!trial) return;
  stopTimers(trial);
  if (trial.phase !== "feedback") session.attempt += 1; // it may have been seen: a new roll next time
  trial = null;
}

async function finish() {
  const ended = session;
  abandon();
  session = null;
  setState("summary");
  show("summary");
  document.querySelector("#summary-title").textContent = "sending your last answers…";
  await queue.drain();
  const url = `/api/sessions/${ended.id}/summary?${new URLSearchParams({ player: ended.player })}`;
  let summary;
  try {
    summary = await requestJson(url, { onWait: waiting });
  } catch (error) {
    document.querySelector("#summary-title").textContent = `no summary: ${error.message}`;
    return;
  }
  setStatus("");
  document.querySelector("#summary-title").textContent = summary.rows.length ? summary.title : "no trials were answered";
  // Each fact on its own line: the median time and accuracy with their change, then the counts.
  document.querySelector("#summary-sentences").replaceChildren(
    ...summary.sentences.map((sentence) => Object.assign(document.createElement("p"), { textContent: sentence })));
  document.querySelector("#progress-link").href = `/me?${new URLSearchParams({ player: ended.player })}`;
  document.querySelector("#report-link").href = `/report?${new URLSearchParams({ player: ended.player })}`;
  // The summary's fields, and the words a player reads for them (the library's, as in the terminal)
  const columns = summary.headings;
  const table = document.querySelector("#summary-table");
  const head = document.createElement("tr");
  for (const words of Object.values(columns)) head.append(Object.assign(document.createElement("th"), { textContent: words }));
  table.tHead.replaceChildren(head);
  table.tBodies[0].replaceChildren(...summary.rows.map((row) => {
    const line = document.createElement("tr");
    for (const column of Object.keys(columns)) {
      line.append(Object.assign(document.createElement("td"), { textContent: row[column] ?? "" }));
    }
    return line;
  }));
}

function fail(message) {
  setStatus(`the drill stopped: ${message}`);
}

// --------------------------------------------------------------------------------- input and help

onAnswerButton(document.querySelector("#answers"), answered);

const help = document.querySelector("#help");

function openHelp() {
  if (help.open) return;
  if (session && trial) {
    // The session waits while the help is open: a trial in progress is dropped, feedback cut short.
    abandon();
    setState("feedback");
    help.addEventListener("close", () => { if (session) nextTrial(); }, { once: true });
  }
  help.showModal();
}

for (const button of document.querySelectorAll(".help-button")) button.addEventListener("click", openHelp);
document.querySelector("#quit").addEventListener("click", () => { if (session) finish(); });
document.querySelector("#again").addEventListener("click", () => {
  setState("setup");
  show("setup");
});

document.addEventListener("keydown", (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey || event.repeat || help.open) return;
  if (!session) return;
  const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
  if (key === QUIT_KEY) {
    finish();
  } else if (key === HELP_KEY) {
    openHelp();
  } else {
    const answer = Object.keys(session.keys).find((name) => session.keys[name] === key);
    if (answer !== undefined) {
      event.preventDefault();
      answered(answer, event.timeStamp);
    }
  }
});

// ------------------------------------------------------------------------------- the send queue

let refusal = ""; // the last trial refused for good stays shown while the others go on
queue.onChange(({ pending, offline, rejected }) => {
  if (rejected) refusal = `the server refused a trial (kept aside in this browser): ${rejected}`;
  const answers = `${pending} answer${pending === 1 ? "" : "s"}`;
  const sending = !pending ? "" : offline ? `${answers} kept in this browser until the server has stored them`
    : `sending ${answers}…`;
  setStatus([sending, refusal].filter(Boolean).join("; "));
});

loadSetup();
setState("setup");
queue.flush(); // what a page before this one kept, if the server was away then
