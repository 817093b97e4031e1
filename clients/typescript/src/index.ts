export { ActionGateClient, ID_PATTERN, SUMMARY_MAX_CHARS } from "./client.js";
export type { ClientOptions, ProposeAndWaitOptions, WaitOptions } from "./client.js";
export { canonicalJson, deriveCallId } from "./call-id.js";
export type { CallIdParts } from "./call-id.js";
export {
  ActionGateError, IdentityConflict, InvalidProposal, NotFound, NotOwned, Rejected, Timeout, Unauthorized, Unavailable,
} from "./errors.js";
export { TERMINAL, attemptCount } from "./types.js";
export type { Attachment, AttemptSummary, Proposal, Receipt, Status } from "./types.js";
