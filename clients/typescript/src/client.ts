import { canonicalJson, deriveCallId, sha256Hex } from "./call-id.js";
import {
  ActionGateError, IdentityConflict, InvalidProposal, NotFound, NotOwned, Rejected, Timeout, Unauthorized, Unavailable,
} from "./errors.js";
import { TERMINAL, type Proposal, type Receipt, type Status } from "./types.js";

/** An action id: `[A-Za-z0-9._:-]{1,128}` (docs/contract.md, reason code `INVALID_IDENTIFIER`). */
export const ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The longest summary, in UTF-16 code units (JavaScript's `String.length`, which the node and the gate count too):
 * a character outside the Basic Multilingual Plane, such as an emoji, counts two (docs/contract.md).
 */
export const SUMMARY_MAX_CHARS = 280;

const REQUIRED = ["task_id", "tool_call_id", "provider", "operation", "tool_name", "tool_schema_hash", "input",
  "summary"] as const;
const OPTIONAL = ["idempotency_key", "business_operation_id", "task_version", "input_digest", "origin", "attachments",
  "claimed_annotations"] as const;
const MEMBERS: ReadonlySet<string> = new Set<string>([...REQUIRED, ...OPTIONAL]);

export interface ClientOptions {
  /** The node's base URL. Default: `ACTIONGATE_URL`, else `http://127.0.0.1:8080`. */
  url?: string;
  /** A tool host token of `http.proposals.tokens.file`. Default: `ACTIONGATE_TOKEN`. */
  token?: string;
  /** Names this host in derived call ids (default: a digest of the token, so two hosts never share an id). */
  host?: string;
  /** Tries of one request on a transient failure (refused or reset connection, 5xx, 408). Default 5. */
  attempts?: number;
  /** First pause between tries, doubled each time up to 5 s. Default 200 ms. */
  retryDelayMs?: number;
  /** How long a request may take beyond its long-poll wait. Default 30 s. */
  requestTimeoutMs?: number;
  /** The `wait=` of each long poll (at most the node's `http.actions.max.wait.ms`). Default 30 s. */
  pollSeconds?: number;
  /** The fetch to use (tests, proxies). Default: the global one of Node 20+. */
  fetch?: typeof fetch;
}

export interface WaitOptions {
  /** `terminal` (default): until nothing further happens; `decided`: until no longer `WAITING_APPROVAL`. */
  until?: "terminal" | "decided";
  /** How long to wait in all before {@link Timeout}. Default 10 minutes. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface ProposeAndWaitOptions extends WaitOptions {
  /** Called once with the first answer, e.g. to show its `review_url` while a human decides. */
  onProposed?: (receipt: Receipt) => void | Promise<void>;
}

interface Answer {
  status: number;
  json: Record<string, unknown> | undefined;
  text: string;
}

/**
 * A tool host's client of an actiongate node's HTTP API (docs/tool-hosts.md): `propose` a tool call, `wait` for its
 * receipt by long poll, or both with `proposeAndWait`. Every retry sends the same ids and data, so it can only find
 * the action the first try made: a redelivery, never a second action.
 */
export class ActionGateClient {
  readonly url: string;
  readonly host: string;
  private readonly token: string;
  private readonly attempts: number;
  private readonly retryDelayMs: number;
  private readonly requestTimeoutMs: number;
  private readonly pollSeconds: number;
  private readonly fetch: typeof fetch;

  constructor(options: ClientOptions = {}) {
    const url = options.url ?? process.env.ACTIONGATE_URL ?? "http://127.0.0.1:8080";
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new TypeError(`actiongate url ${JSON.stringify(url)} is not a URL`);
    }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
      throw new TypeError(`actiongate url ${url} is neither http nor https`);
    }
    this.url = url.replace(/\/+$/, "");
    const token = options.token ?? process.env.ACTIONGATE_TOKEN;
    if (!token) {
      throw new TypeError("no tool host token: pass token or set ACTIONGATE_TOKEN");
    }
    this.token = token;
    this.host = options.host ?? "token-sha256:" + sha256Hex(token);
    this.attempts = positive(options.attempts ?? 5, "attempts");
    this.retryDelayMs = nonNegative(options.retryDelayMs ?? 200, "retryDelayMs");
    this.requestTimeoutMs = positive(options.requestTimeoutMs ?? 30_000, "requestTimeoutMs");
    this.pollSeconds = positive(options.pollSeconds ?? 30, "pollSeconds");
    if (this.pollSeconds > 3600) {
      throw new TypeError(`pollSeconds must be at most 3600, not ${this.pollSeconds}`);
    }
    const f = options.fetch ?? globalThis.fetch;
    if (typeof f !== "function") {
      throw new TypeError("no fetch: Node 20 or later, or pass fetch");
    }
    this.fetch = f;
  }

  /** A call id for this host (see {@link deriveCallId}): the framework's own id hashed, or the tool and arguments. */
  callId(tool: string, call: { frameworkCallId?: string; input?: unknown; scope?: ReadonlyArray<string | number> })
    : string {
    return deriveCallId({ host: this.host, tool, ...call });
  }

  /**
   * Proposes one tool call and answers its first receipt: `WAITING_APPROVAL` (with `review_url`), `APPROVED`,
   * `DISPATCHING`, a terminal one for a redelivery, or `PROPOSED` when the gate had not answered yet.
   * @throws Rejected, IdentityConflict, InvalidProposal, NotOwned, Unauthorized, Unavailable
   */
  async propose(proposal: Proposal, options: { signal?: AbortSignal } = {}): Promise<Receipt> {
    const body = serialize(proposal);
    const answer = await this.send("POST", "/v1/proposals", body, 0, options.signal);
    if (answer.status === 200 || answer.status === 202) {
      const receipt = receiptOf(answer, proposal.task_id, proposal.tool_call_id);
      if (receipt.status === "REJECTED") {
        throw new Rejected(receipt);
      }
      return receipt;
    }
    throw refusal(answer, proposal.task_id, proposal.tool_call_id);
  }

  /** The action's state now, or undefined when no action under these ids is visible to this credential. */
  async get(taskId: string, toolCallId: string, options: { signal?: AbortSignal } = {}): Promise<Receipt | undefined> {
    const answer = await this.send("GET", actionPath(taskId, toolCallId), undefined, 0, options.signal);
    if (answer.status === 404) {
      return undefined;
    }
    if (answer.status === 200) {
      return receiptOf(answer, taskId, toolCallId);
    }
    throw refusal(answer, taskId, toolCallId);
  }

  /**
   * Waits by long poll until the action is terminal (or, `until: "decided"`, no longer `WAITING_APPROVAL`) and
   * answers that state; `SUCCEEDED`, `FAILED`, `DENIED`, `EXPIRED`, `CANCELLED` and `NOT_APPLIED` are answers.
   * @throws Rejected when the action is REJECTED, Timeout (with the last state) when `timeoutMs` runs out, NotFound
   *   when it runs out and no action under these ids was ever visible, Unauthorized, Unavailable
   */
  async wait(taskId: string, toolCallId: string, options: WaitOptions = {}): Promise<Receipt> {
    return this.waitFrom(taskId, toolCallId, undefined, options);
  }

  /**
   * `propose`, then `wait` unless the first answer already is what is waited for. Safe to call again after any
   * failure or crash with the same proposal: it finds the same action and waits for it.
   */
  async proposeAndWait(proposal: Proposal, options: ProposeAndWaitOptions = {}): Promise<Receipt> {
    const first = await this.propose(proposal, { signal: options.signal });
    await options.onProposed?.(first);
    if (reached(first.status, options.until ?? "terminal")) {
      return first;
    }
    return this.waitFrom(proposal.task_id, proposal.tool_call_id, first, options);
  }

  private async waitFrom(taskId: string, toolCallId: string, first: Receipt | undefined, options: WaitOptions)
    : Promise<Receipt> {
    checkId(taskId, "task_id");
    checkId(toolCallId, "tool_call_id");
    const until = options.until ?? "terminal";
    if (until !== "terminal" && until !== "decided") {
      throw new TypeError(`until must be "terminal" or "decided", not ${JSON.stringify(until)}`);
    }
    const timeoutMs = nonNegative(options.timeoutMs ?? 600_000, "timeoutMs");
    const start = Date.now();
    let last = first;
    for (;;) {
      const left = timeoutMs - (Date.now() - start);
      if (left <= 0) {
        if (last === undefined) {
          throw new NotFound(taskId, toolCallId);
        }
        throw new Timeout(taskId, toolCallId, Date.now() - start, last);
      }
      const waitMs = Math.max(1, Math.min(left, this.pollSeconds * 1000));
      const answer = await this.send("GET", `${actionPath(taskId, toolCallId)}?wait=${Math.ceil(waitMs)}ms`
        + `&until=${until}`, undefined, waitMs, options.signal);
      if (answer.status === 404) {
        // a proposal answered 202 may not be visible yet: wait on until the deadline (a node answers 404 at the end
        // of the wait, but do not spin should one answer at once)
        await sleep(Math.min(250, left), options.signal);
        continue;
      }
      if (answer.status !== 200) {
        throw refusal(answer, taskId, toolCallId);
      }
      const receipt = receiptOf(answer, taskId, toolCallId);
      // GET has no review_url: keep the one the proposal answered
      last = receipt.review_url === undefined && last?.review_url !== undefined
        ? { ...receipt, review_url: last.review_url } : receipt;
      if (last.status === "REJECTED") {
        throw new Rejected(last);
      }
      if (reached(last.status, until)) {
        return last;
      }
    }
  }

  /** One request, tried again on a transient failure with the very same body. */
  private async send(method: string, path: string, body: string | undefined, waitMs: number,
    signal: AbortSignal | undefined): Promise<Answer> {
    let delay = this.retryDelayMs;
    let lastFailure: unknown;
    for (let attempt = 1; attempt <= this.attempts; attempt++) {
      signal?.throwIfAborted();
      const limit = AbortSignal.timeout(waitMs + this.requestTimeoutMs);
      try {
        const response = await this.fetch(this.url + path, {
          method,
          headers: {
            Authorization: `Bearer ${this.token}`,
            Accept: "application/json",
            ...(body === undefined ? {} : { "Content-Type": "application/json" }),
          },
          body,
          signal: signal ? anySignal(signal, limit) : limit,
        });
        const text = await response.text();
        const answer: Answer = { status: response.status, json: parseObject(text), text };
        if (!transient(response.status)) {
          return answer;
        }
        lastFailure = new ActionGateError(`${method} ${path} answered ${response.status}: ${text.slice(0, 200)}`,
          { status: response.status, body: answer.json ?? text });
      } catch (error) {
        if (signal?.aborted) {
          throw error;
        }
        lastFailure = error;
      }
      if (attempt < this.attempts) {
        await sleep(delay * (0.5 + Math.random() / 2), signal);
        delay = Math.min(delay * 2, 5000);
      }
    }
    const status = lastFailure instanceof ActionGateError ? lastFailure.status : undefined;
    throw new Unavailable(`${method} ${this.url}${path} failed ${this.attempts} times: ${describe(lastFailure)}`,
      { status, cause: lastFailure });
  }
}

function reached(status: Status, until: "terminal" | "decided"): boolean {
  return TERMINAL.has(status) || (until === "decided" && status !== "WAITING_APPROVAL" && status !== "PROPOSED");
}

/** 408 (body too slow), 429 and 5xx are worth another try; a retry resends the same ids and data. */
function transient(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/** Checks what the node would refuse anyway, so that the error is clear and nothing is sent. */
function serialize(proposal: Proposal): string {
  if (proposal === null || typeof proposal !== "object" || Array.isArray(proposal)) {
    throw new InvalidProposal("INVALID_JSON", "a proposal is an object");
  }
  const members = proposal as unknown as Record<string, unknown>;
  for (const name of Object.keys(members)) {
    if (!MEMBERS.has(name)) {
      throw new InvalidProposal("UNKNOWN_MEMBER", `${name} is not a proposal member`
        + (name === "org_id" || name === "principal_id" || name === "profile_id"
          ? " (it comes from the token, never from the body)" : ""), { member: name });
    }
  }
  for (const name of REQUIRED) {
    if (members[name] === undefined || members[name] === null) {
      throw new InvalidProposal("MISSING_MEMBER", `${name} is missing`, { member: name });
    }
  }
  checkId(proposal.task_id, "task_id");
  checkId(proposal.tool_call_id, "tool_call_id");
  for (const name of ["provider", "operation", "tool_name", "tool_schema_hash", "summary"] as const) {
    if (typeof proposal[name] !== "string" || proposal[name].length === 0) {
      throw new InvalidProposal("INVALID_MEMBER", `${name} must be a non-empty string`, { member: name });
    }
  }
  if (proposal.summary.length > SUMMARY_MAX_CHARS) {
    throw new InvalidProposal("INVALID_MEMBER", `summary is longer than ${SUMMARY_MAX_CHARS} UTF-16 code units`,
      { member: "summary" });
  }
  if (typeof proposal.input !== "object" || Array.isArray(proposal.input)) {
    throw new InvalidProposal("INPUT_NOT_OBJECT", "input must be a JSON object", { member: "input" });
  }
  const version = proposal.task_version;
  if (version !== undefined && (!Number.isSafeInteger(version) || version < 0)) {
    throw new InvalidProposal("INVALID_MEMBER", "task_version must be a non-negative integer",
      { member: "task_version" });
  }
  try {
    canonicalJson(proposal.input, "input"); // refuses what JSON.stringify would silently drop or rewrite
    return JSON.stringify(proposal);
  } catch (error) {
    throw new InvalidProposal("INVALID_MEMBER", error instanceof Error ? error.message : String(error),
      { member: "input" });
  }
}

function checkId(id: unknown, name: string): void {
  if (typeof id !== "string" || !ID_PATTERN.test(id)) {
    throw new InvalidProposal("INVALID_ID", `${name} ${JSON.stringify(id)} does not match [A-Za-z0-9._:-]{1,128}`
      + " (ActionGateClient.callId derives a valid one)", { member: name });
  }
}

function actionPath(taskId: string, toolCallId: string): string {
  checkId(taskId, "task_id");
  checkId(toolCallId, "tool_call_id");
  return `/v1/actions/${taskId}/${toolCallId}`;
}

function receiptOf(answer: Answer, taskId: string, toolCallId: string): Receipt {
  const json = answer.json;
  if (json === undefined || typeof json.status !== "string" || json.task_id !== taskId
    || json.tool_call_id !== toolCallId) {
    throw new ActionGateError(`unexpected answer ${answer.status} for ${taskId}/${toolCallId}: `
      + answer.text.slice(0, 200), { status: answer.status, body: json ?? answer.text });
  }
  return json as unknown as Receipt;
}

function refusal(answer: Answer, taskId: string, toolCallId: string): ActionGateError {
  const json = answer.json ?? {};
  const text = (key: string): string | undefined => typeof json[key] === "string" ? json[key] as string : undefined;
  const message = text("message") ?? answer.text.slice(0, 200);
  switch (answer.status) {
    case 400:
      if (text("reason_code") === undefined) { // not a proposal's refusal: a request this client should not send
        return new ActionGateError(`the node refused the request (400): ${message}`, { status: 400, body: json });
      }
      return new InvalidProposal(text("reason_code")!, message, {
        member: text("member"), computedDigest: text("computed_digest"), offeredDigest: text("offered_digest"),
        status: 400, body: json,
      });
    case 401:
      return new Unauthorized(`the node refused the credential (401): ${message}`, { status: 401, body: json });
    case 403:
      return new NotOwned(text("task_id") ?? taskId, message, json);
    case 404:
      return new NotFound(taskId, toolCallId);
    case 409:
      return new IdentityConflict(text("task_id") ?? taskId, text("tool_call_id") ?? toolCallId,
        text("existing_digest") ?? "?", text("offered_digest") ?? "?", json);
    default:
      return new ActionGateError(`unexpected answer ${answer.status}: ${message}`, { status: answer.status, body: json });
  }
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === "object" && !Array.isArray(value)
      ? value as Record<string, unknown> : undefined;
  } catch {
    return undefined;
  }
}

function describe(failure: unknown): string {
  if (failure instanceof Error) {
    const cause = (failure as { cause?: unknown }).cause;
    return failure.message + (cause instanceof Error ? ` (${cause.message})` : "");
  }
  return String(failure);
}

/** Aborts when either does (AbortSignal.any, which Node has from 20.3 on). */
function anySignal(a: AbortSignal, b: AbortSignal): AbortSignal {
  if (typeof AbortSignal.any === "function") {
    return AbortSignal.any([a, b]);
  }
  const controller = new AbortController();
  for (const signal of [a, b]) {
    if (signal.aborted) {
      controller.abort(signal.reason);
    }
    signal.addEventListener("abort", () => controller.abort(signal.reason), { once: true });
  }
  return controller.signal;
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", abort);
      resolve();
    }, ms);
    const abort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", abort, { once: true });
  });
}

function positive(value: number, name: string): number {
  if (!(Number.isFinite(value) && value > 0)) {
    throw new TypeError(`${name} must be a positive number, not ${value}`);
  }
  return value;
}

function nonNegative(value: number, name: string): number {
  if (!(Number.isFinite(value) && value >= 0)) {
    throw new TypeError(`${name} must be a non-negative number, not ${value}`);
  }
  return value;
}
