// The page's state, as the drill, the Play page and a room keep it: the moment on <body> as data-state
// (and data-onset only while a roll is shown), one section of <main> shown at a time, and one status line.

export function setState(state) {
  document.body.dataset.state = state;
  if (state !== "stimulus") delete document.body.dataset.onset;
}

// Show the section of <main> with id `section`, and hide its other sections. The stage, as it appears, scrolls
// its table wholly into view if it is not: the page keeps the scroll of the form that started the game, which on
// a short landscape screen (where the page scrolls) would leave the table's top above the window. Once shown, it
// is left where the player scrolled it.
export function show(section) {
  const appearing = document.getElementById(section).hidden;
  for (const node of document.querySelectorAll("main > section[id]")) node.hidden = node.id !== section;
  if (section === "stage" && appearing) document.querySelector("#table").scrollIntoView({ block: "nearest" });
}

export function setStatus(text) {
  document.querySelector("main [role=status]").textContent = text;
}
