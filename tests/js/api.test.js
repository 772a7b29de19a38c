// api.js, the counter's API as the outbox calls it: each answer sorted by what the outbox
// does about it (docs/sync.md). fetch is Node's own, replaced in each test by the answer.
import assert from "node:assert/strict";
import { test } from "node:test";

import { call, Gone, Refused, Unreachable } from "../../static/api.js";

// fetch answers `body` (JSON unless a string) with `status`, and keeps what it was asked.
function answering(t, status, body) {
  const asked = [];
  t.mock.method(globalThis, "fetch", async (path, options) => {
    asked.push({ path, ...options });
    const text = body === undefined || typeof body === "string" ? body : JSON.stringify(body);
    return new Response(text ?? null, { status });
  });
  return asked;
}

test("an answer is the server's JSON", async (t) => {
  answering(t, 200, { id: 7 });
  assert.deepEqual(await call("GET", "/api/matches/7"), { id: 7 });
});

test("an answer with no content is null", async (t) => {
  answering(t, 204);
  assert.equal(await call("DELETE", "/api/matches/7/deals/last?number=1"), null);
});

test("a body goes as JSON, with the page's cookies", async (t) => {
  const asked = answering(t, 200, {});
  await call("POST", "/api/matches", { target: 11 });
  const [{ method, body, headers, credentials }] = asked;
  assert.deepEqual(
    [method, body, headers, credentials],
    ["POST", '{"target":11}', { "Content-Type": "application/json" }, "same-origin"],
  );
});

test("no network is unreachable: the change waits its turn", async (t) => {
  t.mock.method(globalThis, "fetch", async () => {
    throw new TypeError("Failed to fetch");
  });
  await assert.rejects(call("GET", "/api/matches/7"), Unreachable);
});

test("a busy server is unreachable", async (t) => {
  answering(t, 503, { error: "The database is busy." });
  await assert.rejects(call("GET", "/api/matches/7"), Unreachable);
});

test("too many requests is unreachable", async (t) => {
  answering(t, 429, { error: "Too many requests." });
  await assert.rejects(call("GET", "/api/matches/7"), Unreachable);
});

test("a page that is not the counter's answer (a Wi-Fi login) is unreachable", async (t) => {
  answering(t, 200, "<html>Log in to the Wi-Fi</html>");
  await assert.rejects(call("GET", "/api/matches/7"), Unreachable);
});

test("a refusal without the counter's words (a proxy's) is unreachable", async (t) => {
  answering(t, 403, { message: "Forbidden" });
  await assert.rejects(call("GET", "/api/matches/7"), Unreachable);
});

test("a match no longer there is gone", async (t) => {
  answering(t, 404, { error: "No such match." });
  await assert.rejects(call("GET", "/api/matches/7"), Gone);
});

test("the counter's refusal carries its words and the whole answer", async (t) => {
  const answer = { error: "The match is won.", match: { id: 7 } };
  answering(t, 409, answer);
  await assert.rejects(call("POST", "/api/matches/7/deals", {}), (error) => {
    assert.ok(error instanceof Refused);
    assert.equal(error.message, "The match is won.");
    assert.deepEqual(error.cause, answer);
    return true;
  });
});
