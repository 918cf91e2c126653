// The page's state, as the drill, the Play page and a room keep it: the moment on <body> as data-state
// (and data-onset only while a roll is shown), one section of <main> shown at a time, and one status line.

export function setState(state) {
  document.body.dataset.state = state;
  if (state !== "stimulus") delete document.body.dataset.onset;
}

// Show the section of <main> with id `section`, and hide its other sections.
export function show(section) {
  for (const node of document.querySelectorAll("main > section[id]")) node.hidden = node.id !== section;
}

export function setStatus(text) {
  document.querySelector("main [role=status]").textContent = text;
}
