// The seats around the table, as the Play page and a room show them: name, gems, and the grab of the
// round. Names are put in as text (textContent), never as markup, so a name is shown as typed.

import { served } from "./served.js";

const { max_gems: MAX_GEMS } = served("play-settings"); // the library's (web/pages.py: play_settings)

export function gemsText(gems) {
  return gems > 0 ? "●".repeat(gems) + "○".repeat(Math.max(MAX_GEMS - gems, 0)) : "out";
}

function seconds(ms) {
  return `${(ms / 1000).toFixed(2)} s`;
}

// One grab in words: "Ana red 0.84 s", then whether a devil was left for it.
export function describeGrab(name, grab, held) {
  if (!grab || grab.answer === null) return `${name}: no answer`;
  return `${name}: ${grab.answer} ${seconds(grab.latency_ms)}${held === null ? " (none left)" : ""}`;
}

// A seat's line: `state` is the game (names, gems, human seat, away seats); `grab` what they grabbed this
// round ({answer, latency_ms, got}), or nothing yet.
export function seatLine(name, seat, state, grab) {
  const line = document.createElement("li");
  const gems = state.gems[seat];
  line.className = `seat${gems > 0 ? "" : " out"}${seat === state.human ? " you" : ""}`;
  line.dataset.seat = String(seat);
  line.dataset.gems = String(gems);
  const who = Object.assign(document.createElement("span"), { className: "name", textContent: name });
  const dots = Object.assign(document.createElement("span"), { className: "gems", textContent: gemsText(gems) });
  dots.setAttribute("aria-label", `${gems} gems`);
  line.append(who, dots);
  if (state.away && state.away.includes(seat)) {
    line.append(Object.assign(document.createElement("span"), { className: "away", textContent: "away" }));
  }
  if (grab && grab.answer !== null && grab.answer !== undefined) {
    const reach = document.createElement("span");
    reach.className = `grab grab-${grab.answer}${grab.got ? "" : " missed"}`;
    reach.textContent = grab.latency_ms === undefined ? "grabbed" : `${grab.answer} ${seconds(grab.latency_ms)}`;
    line.append(reach);
  }
  return line;
}

// What a round meant for `seat`: the verdict's words and its kind (right or wrong).
export function verdict(record, seat) {
  const mine = record.grabs[seat];
  const held = record.held[seat] !== null;
  const right = mine.answer !== null && record.accepted.includes(mine.answer);
  const answer = record.accepted.join(" or ");
  if (mine.answer === null) return { text: `NO DEVIL: the answer is ${answer}`, kind: "wrong" };
  if (right && held) return { text: `RIGHT: ${mine.answer}`, kind: "right" };
  if (right) return { text: `RIGHT, BUT TOO SLOW: no ${mine.answer} devil was left`, kind: "wrong" };
  return { text: `WRONG: you grabbed ${mine.answer}, the answer is ${answer}`, kind: "wrong" };
}

// The rules' reason, then every grab, fastest first.
export function roundStory(record, names) {
  const order = record.order.map((seat) => describeGrab(names[seat], record.grabs[seat], record.held[seat]));
  return `${record.reason}. ${order.join("; ")}`;
}

// How a room's round was judged over the network: the grace before its devils were awarded and the claims
// flagged as faster than their player's own drill log makes plausible.
export function fairnessText(record, names) {
  if (record.grace_ms === undefined) return "";
  const flagged = record.flagged.map((seat) => `${names[seat]}'s ${seconds(record.claims[seat].claimed_ms)}`);
  return `Devils awarded after a ${Math.round(record.grace_ms)} ms grace for the slowest link.`
    + (flagged.length ? ` Flagged, faster than their own drill log makes plausible: ${flagged.join(", ")}.` : "");
}

// The finished game's round log as table rows.
export function roundRows(rounds, names) {
  return rounds.map((record) => {
    const line = document.createElement("tr");
    const order = record.order.map((seat) => describeGrab(names[seat], record.grabs[seat], record.held[seat]));
    const flags = fairnessText(record, names);
    for (const cell of [record.number, record.command, record.accepted.join(" or "),
      order.join("; ") + (record.flagged && record.flagged.length ? `. ${flags}` : ""),
      record.gems_after.map((gems, seat) => `${names[seat]} ${gemsText(gems)}`).join(", ")]) {
      line.append(Object.assign(document.createElement("td"), { textContent: String(cell) }));
    }
    return line;
  });
}

// The engine's replay of a finished game, in words.
export function engineCheckText(check) {
  return check.mismatches.length
    ? `The game engine disagrees with this game's referee on rounds ${check.mismatches.join(", ")}.`
    : `Refereed by the library: the ${check.rounds} rounds replayed through the game engine give the same gems, round by round.`;
}

export function winnersText(winners, names) {
  const named = winners.map((seat) => names[seat]);
  return named.length === 1 ? `${named[0]} wins` : named.length ? `${named.join(" and ")} share the win`
    : "no winner: the last players went out together";
}
