// What the server put in the page for its scripts (a <script type="application/json"> of the template): the
// library's settings, limits and words, so that no script keeps a copy of them.

export function served(id) {
  return JSON.parse(document.getElementById(id).textContent);
}
