// A tool host on @actiongate/client alone: proposes one email, prints its state and review URL, shows that other
// data under the same ids is an identity conflict (never a second email), and waits for the outcome.
//   ACTIONGATE_TOKEN=... node build/examples/propose-email.js     (after npm run build:test; see README.md)
import { IdentityConflict, type Proposal } from "@actiongate/client";

import { client, printFinal, printProposed, settings } from "./settings.js";

function email(to: string, text: string): Proposal {
  return {
    task_id: settings.task, tool_call_id: settings.call, provider: settings.provider, operation: "send_email",
    tool_name: "send_email", tool_schema_hash: settings.schema,
    input: { to, subject: "From the TypeScript host", body: text }, summary: `Email ${to}: ${text}`,
  };
}

const first = await client.propose(email("ops@example.com", "disk is full"));
printProposed(first);
try {
  await client.propose(email("ceo@example.com", "all is well")); // the same ids, other data
} catch (error) {
  if (!(error instanceof IdentityConflict)) {
    throw error;
  }
  console.log("conflict existing", error.existingDigest, "offered", error.offeredDigest);
}
// the long poll answers as soon as the action is settled; proposing the same call again would find the same action
printFinal(await client.wait(settings.task, settings.call));
