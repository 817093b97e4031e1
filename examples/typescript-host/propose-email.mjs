// @ts-check
// A tool host in TypeScript/JavaScript on actiongate's HTTP API: Node 18+ and its fetch, no dependency, no build.
// Proposes one email, prints its state and review URL, shows that other data under the same ids is a conflict
// (never a second email), and waits for the outcome. Environment: ACTIONGATE_URL (default http://127.0.0.1:8080),
// ACTIONGATE_TOKEN (a tool host token of http.proposals.tokens.file), TASK_ID, TOOL_CALL_ID, and PROVIDER and
// TOOL_SCHEMA_HASH (default: ./actiongate dev's demo tool smtp/send_email).
import { randomUUID } from "node:crypto";

const BASE = process.env.ACTIONGATE_URL ?? "http://127.0.0.1:8080";
const TOKEN = process.env.ACTIONGATE_TOKEN;
const { TASK_ID: TASK = "T-1", TOOL_CALL_ID: CALL = `ts-${randomUUID().slice(0, 12)}` } = process.env;
const { PROVIDER = "smtp", TOOL_SCHEMA_HASH = "sha256:demo-send-email-v1" } = process.env;
const TERMINAL = new Set(["SUCCEEDED", "FAILED", "REJECTED", "DENIED", "EXPIRED", "CANCELLED", "NOT_APPLIED"]);

/** @param {string} method @param {string} path @param {object} [body] */
async function call(method, path, body) {
  const headers = { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json" };
  const response = await fetch(BASE + path, { method, headers, body: body && JSON.stringify(body) });
  return { code: response.status, json: await response.json() };
}

/** @param {string} to @param {string} text */
const propose = (to, text) => call("POST", "/v1/proposals", {
  task_id: TASK, tool_call_id: CALL, provider: PROVIDER, operation: "send_email",
  tool_name: "send_email", tool_schema_hash: TOOL_SCHEMA_HASH,
  input: { to, subject: "From the TypeScript host", body: text }, summary: `Email ${to}: ${text}`,
});

let { code, json: action } = await propose("ops@example.com", "disk is full");
if (code !== 200 && code !== 202) throw new Error(`refused: ${code} ${JSON.stringify(action)}`);
console.log("state", action.status, "review", action.review_url ?? "-", "digest", action.action_digest);
const conflict = await propose("ceo@example.com", "all is well"); // same ids, other data
if (conflict.code === 409) {
  console.log("conflict existing", conflict.json.existing_digest, "offered", conflict.json.offered_digest);
}
while (!TERMINAL.has(action.status)) { // long poll: the server answers as soon as it is settled
  ({ json: action } = await call("GET", `/v1/actions/${TASK}/${CALL}?wait=30s&until=terminal`));
}
console.log("final", action.status, action.reason_code ?? "", action.provider_receipt_id ?? "");
process.exit(action.status === "SUCCEEDED" ? 0 : 1);
