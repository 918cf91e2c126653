// The seats around the table, as the Play page and a room show them: name, gems, and the grab of the
// round. Names are put in as text (textContent), never as markup, so a name is shown as typed.

const MAX_GEMS = 5;

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
