import unittest

from actiongate_client import ID_PATTERN, ActionGateClient, canonical_json, derive_call_id

# the same vectors are asserted in clients/typescript/test/call-id.test.ts
VECTOR_1 = "ag-7df988a4de430be1556e6a9ccfadc1fdb3a6f0d0"
VECTOR_2 = "ag-d2bb4777088a80664b10f0a818a98f0f4375c42f"
VECTOR_3 = "ag-41e06713cb05f9ebb926e5349ce89b6a44bdba7b"
EMAIL = {"to": "ops@example.com", "body": "disk is full"}


class CanonicalJsonTest(unittest.TestCase):
    def test_should_sort_by_utf16_code_units_and_write_numbers_as_ecmascript_does(self):
        self.assertEqual(canonical_json({"b": [1, 1.5, -0.0, 1e21, 1e-7, 100.0, 2 ** 60], "a": {
            "\u20ac": 1, "\U0001F600": 2, "z": None}}),
            '{"a":{"z":null,"\u20ac":1,"\U0001F600":2},"b":[1,1.5,0,1e+21,1e-7,100,1152921504606847000]}')
        self.assertEqual(canonical_json("line\nquote\"\x1f"), '"line\\nquote\\"\\u001f"')
        self.assertEqual(canonical_json([123456789012345680000.0, 0.000001, 1.25e-7, -5e-324]),
                         "[123456789012345680000,0.000001,1.25e-7,-5e-324]")

    def test_should_refuse_what_json_cannot_carry(self):
        with self.assertRaisesRegex(ValueError, r"\$\.a is nan"):
            canonical_json({"a": float("nan")})
        with self.assertRaises(TypeError):
            canonical_json({"a": object()})
        with self.assertRaises(TypeError):
            canonical_json({1: "x"})


class DeriveCallIdTest(unittest.TestCase):
    def test_should_give_a_retry_of_the_same_call_the_same_id(self):
        first = derive_call_id("host-1", "send_email", input=EMAIL)
        self.assertRegex(first, r"^ag-[0-9a-f]{40}$")
        self.assertTrue(ID_PATTERN.match(first))
        self.assertEqual(derive_call_id("host-1", "send_email", input={"body": "disk is full",
                                                                       "to": "ops@example.com"}), first)

    def test_should_give_distinct_calls_distinct_ids(self):
        ids = {
            derive_call_id("host-1", "send_email", input=EMAIL),
            derive_call_id("host-2", "send_email", input=EMAIL),
            derive_call_id("host-1", "send_sms", input=EMAIL),
            derive_call_id("host-1", "send_email", input=dict(EMAIL, to="ceo@example.com")),
            derive_call_id("host-1", "send_email", input=EMAIL, scope=["turn-2"]),
            derive_call_id("host-1", "send_email", framework_call_id="call_1"),
            derive_call_id("host-1", "send_email", framework_call_id="call_2"),
        }
        self.assertEqual(len(ids), 7)

    def test_should_match_the_typescript_package(self):
        self.assertEqual(derive_call_id("h", "send_email", input={"b": [1, 1.5, "x"], "a": {"y": True, "x": None}},
                                        scope=["turn-1", 2]), VECTOR_1)
        self.assertEqual(derive_call_id("h", "send_email", framework_call_id="call_abc"), VECTOR_2)
        self.assertEqual(derive_call_id("h", "t", input={"n": 1e21, "m": 0.1, "k": -0.0,
                                                         "e": "\u00e9\U0001F600"}), VECTOR_3)

    def test_should_name_the_host_by_its_token_unless_told_otherwise(self):
        a = ActionGateClient("http://127.0.0.1:1", "token-a-000000000000")
        b = ActionGateClient("http://127.0.0.1:1", "token-b-000000000000")
        named = ActionGateClient("http://127.0.0.1:1", "token-a-000000000000", host="h")
        self.assertNotEqual(a.call_id("send_email", input=EMAIL), b.call_id("send_email", input=EMAIL))
        self.assertEqual(named.call_id("send_email", framework_call_id="call_abc"), VECTOR_2)
        self.assertNotIn("token-a", a.host)


if __name__ == "__main__":
    unittest.main()
