// The counter's API as the outbox calls it: one request, and a failure sorted by what the
// outbox does about it (docs/sync.md).

export class Refused extends Error {} // `cause`: what the server said
export class Gone extends Error {} // the match is no longer there
export class Unreachable extends Error {} // the change waits its turn

export async function call(method, path, body) {
  const response = await fetch(path, {
    method,
    credentials: "same-origin",
    headers: body ? { "Content-Type": "application/json" } : {},
    body: body ? JSON.stringify(body) : undefined,
  }).catch((error) => {
    throw new Unreachable(error.message);
  });
  if (response.status === 204) return null;
  const answer = await response.json().catch(() => undefined);
  if (response.ok && answer !== undefined) return answer;
  // A busy server or database, too many requests, or an answer that is not the counter's
  // (a proxy's timeout, a Wi-Fi login page): the change waits its turn.
  if (response.ok || response.status >= 500 || response.status === 429 || answer?.error === undefined) {
    throw new Unreachable(answer?.error ?? response.statusText);
  }
  throw new (response.status === 404 ? Gone : Refused)(answer.error, { cause: answer });
}
