import { createHash } from "node:crypto";

/**
 * RFC 8785 (JCS) text of a JSON value: object members sorted by UTF-16 code units, ECMAScript number form, no
 * whitespace. Throws TypeError on what JSON cannot carry unchanged (undefined, functions, symbols, bigints,
 * NaN and infinities), instead of dropping or rewriting it as JSON.stringify would.
 */
export function canonicalJson(value: unknown, path = "$"): string {
  if (value === null) {
    return "null";
  }
  switch (typeof value) {
    case "boolean":
      return value ? "true" : "false";
    case "string":
      return JSON.stringify(value);
    case "number":
      if (!Number.isFinite(value)) {
        throw new TypeError(`${path} is ${value}, which JSON cannot carry`);
      }
      return Object.is(value, -0) ? "0" : String(value);
    case "object": {
      if (Array.isArray(value)) {
        return "[" + value.map((item, i) => canonicalJson(item, `${path}[${i}]`)).join(",") + "]";
      }
      const json = (value as { toJSON?: () => unknown }).toJSON;
      if (typeof json === "function") {
        return canonicalJson(json.call(value), path);
      }
      const keys = Object.keys(value).sort();
      return "{" + keys.map((k) => JSON.stringify(k) + ":"
        + canonicalJson((value as Record<string, unknown>)[k], `${path}.${k}`)).join(",") + "}";
    }
    default:
      throw new TypeError(`${path} is ${typeof value}, which JSON cannot carry`);
  }
}

export function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/** What a call id is derived from: the host, the tool, and either the framework's own call id or the call's data. */
export interface CallIdParts {
  /** Who calls (any stable string naming the tool host, e.g. its principal); ActionGateClient.callId uses its token. */
  host: string;
  /** The tool's name. */
  tool: string;
  /** The framework's id of this call, when it gives one (any string: it is hashed, so any characters do). */
  frameworkCallId?: string;
  /** The call's arguments: used when there is no framework id. */
  input?: unknown;
  /**
   * Without a framework id, what tells two intended calls with the same arguments apart (a turn id, a step number):
   * with the same scope, the same tool and arguments are one call, and a second call is a redelivery of the first.
   */
  scope?: ReadonlyArray<string | number>;
}

/**
 * A `tool_call_id` of this host for a framework's call: `ag-` and 40 hex digits of the SHA-256 of the parts' RFC 8785
 * form. A retry of the same call gives the same id, so it finds the same action and never acts twice; another host,
 * tool, framework call id, scope or argument gives another id. Hashing the framework's id with the host's identity
 * keeps two hosts of one org from ever sharing an id (docs/contract.md, "Who may hold a key": the second would be an
 * identity conflict) and makes any framework id a valid action id. The Python package derives the same ids.
 */
export function deriveCallId(parts: CallIdParts): string {
  const call: Record<string, unknown> = { host: parts.host, tool: parts.tool };
  if (parts.frameworkCallId !== undefined) {
    call.call_id = parts.frameworkCallId;
  } else {
    call.arguments = parts.input ?? null;
    call.scope = parts.scope ?? [];
  }
  return "ag-" + sha256Hex(canonicalJson(call)).slice(0, 40);
}
