import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { ActionGateClient, ID_PATTERN, canonicalJson, deriveCallId } from "@actiongate/client";

describe("canonicalJson (RFC 8785)", () => {
  it("should sort members by UTF-16 code units and write numbers as ECMAScript does", () => {
    assert.equal(canonicalJson({ b: [1, 1.5, -0, 1e21, 1e-7, 100], a: { "\u20ac": 1, "\ud83d\ude00": 2, z: null } }),
      '{"a":{"z":null,"\u20ac":1,"\ud83d\ude00":2},"b":[1,1.5,0,1e+21,1e-7,100]}');
    assert.equal(canonicalJson("line\nquote\"\u001f"), '"line\\nquote\\"\\u001f"');
  });

  it("should refuse what JSON cannot carry instead of dropping it", () => {
    assert.throws(() => canonicalJson({ a: Number.NaN }), /\$\.a is NaN/);
    assert.throws(() => canonicalJson({ a: [undefined] }), /\$\.a\[0\] is undefined/);
    assert.throws(() => canonicalJson({ f: () => 1 }), /function/);
  });
});

describe("deriveCallId", () => {
  const base = { host: "host-1", tool: "send_email", input: { to: "ops@example.com", body: "disk is full" } };

  it("should give the same id to a retry of the same call, whatever the member order", () => {
    const id = deriveCallId(base);
    assert.match(id, ID_PATTERN);
    assert.match(id, /^ag-[0-9a-f]{40}$/);
    assert.equal(deriveCallId({ ...base, input: { body: "disk is full", to: "ops@example.com" } }), id);
  });

  it("should give distinct calls distinct ids", () => {
    const ids = new Set([
      deriveCallId(base),
      deriveCallId({ ...base, host: "host-2" }),
      deriveCallId({ ...base, tool: "send_sms" }),
      deriveCallId({ ...base, input: { to: "ceo@example.com", body: "disk is full" } }),
      deriveCallId({ ...base, scope: ["turn-2"] }),
      deriveCallId({ ...base, frameworkCallId: "call_1" }),
      deriveCallId({ ...base, frameworkCallId: "call_2" }),
    ]);
    assert.equal(ids.size, 7);
  });

  it("should match the Python package's derivation (shared vectors)", () => {
    // the same vectors are asserted in clients/python/tests/test_call_id.py
    assert.equal(deriveCallId({ host: "h", tool: "send_email", input: { b: [1, 1.5, "x"], a: { y: true, x: null } },
      scope: ["turn-1", 2] }), VECTOR_1);
    assert.equal(deriveCallId({ host: "h", tool: "send_email", frameworkCallId: "call_abc" }), VECTOR_2);
    assert.equal(deriveCallId({ host: "h", tool: "t", input: { n: 1e21, m: 0.1, k: -0, e: "\u00e9\ud83d\ude00" } }),
      VECTOR_3);
  });

  it("should name the host by its token unless told otherwise", () => {
    const a = new ActionGateClient({ url: "http://127.0.0.1:1", token: "token-a-000000000000" });
    const b = new ActionGateClient({ url: "http://127.0.0.1:1", token: "token-b-000000000000" });
    const named = new ActionGateClient({ url: "http://127.0.0.1:1", token: "token-a-000000000000", host: "h" });
    assert.notEqual(a.callId("send_email", { input: base.input }), b.callId("send_email", { input: base.input }));
    assert.equal(named.callId("send_email", { frameworkCallId: "call_abc" }), VECTOR_2);
    assert.ok(!a.host.includes("token-a"), "the host name never carries the token itself");
  });
});

const VECTOR_1 = "ag-7df988a4de430be1556e6a9ccfadc1fdb3a6f0d0";
const VECTOR_2 = "ag-d2bb4777088a80664b10f0a818a98f0f4375c42f";
const VECTOR_3 = "ag-41e06713cb05f9ebb926e5349ce89b6a44bdba7b";
