// Requests to this server, with one policy for a server that cannot answer now: a request that could not
// reach the server, or that it answered 429 (too fast), 502, 503 or 504 (busy, or away behind a proxy), is
// asked again after the server's Retry-After (at most 30 s), else after a second. Every other answer is
// final: a success, or a refusal (the server's message, and the field it names).

export const AGAIN = new Set([429, 502, 503, 504]);
export const RETRY_MS = 1000;
export const MAX_RETRY_MS = 30000;

// A final refusal: the server's message, its status and the field it named.
export class Refusal extends Error {
  constructor(message, status, field) {
    super(message);
    this.status = status;
    this.field = field;
  }
}

// The request stopped being wanted while it waited to be asked again.
export class Abandoned extends Error {}

export function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// How long to wait before asking again after `response` (null: the server was not reached), in ms.
export function retryDelay(response) {
  const after = Number(response?.headers.get("Retry-After"));
  return after > 0 ? Math.min(after * 1000, MAX_RETRY_MS) : RETRY_MS;
}

// One try: the response, or null when the server was not reached. `payload` is posted as JSON.
export async function attempt(path, payload, method = payload === undefined ? "GET" : "POST") {
  const init = { method, credentials: "same-origin" };
  if (payload !== undefined) {
    init.headers = { "Content-Type": "application/json" };
    init.body = typeof payload === "string" ? payload : JSON.stringify(payload);
  }
  try {
    return await fetch(path, init);
  } catch {
    return null; // the server is away
  }
}

// Whether the policy asks again after `response` (null: not reached).
export function askAgain(response) {
  return response === null || AGAIN.has(response.status);
}

// The Refusal a final, unsuccessful `response` says.
export async function refusal(response) {
  let answer = {};
  try { answer = await response.json(); } catch { /* no JSON: the status says it */ }
  return new Refusal(answer.error ?? `status ${response.status}`, response.status, answer.field);
}

// The JSON answer to a GET of `path`, or a POST of `payload`, asked again by the policy while `wanted()`;
// `onWait(response)` is told each time it must wait. Throws a Refusal, or Abandoned once no longer wanted.
export async function requestJson(path, { payload, wanted = () => true, onWait = () => {} } = {}) {
  for (;;) {
    const response = await attempt(path, payload);
    if (!wanted()) throw new Abandoned(path);
    if (response && response.ok) return response.json();
    if (!askAgain(response)) throw await refusal(response);
    onWait(response);
    await sleep(retryDelay(response));
    if (!wanted()) throw new Abandoned(path);
  }
}
