/**
 * Who made a change, from the audit log: the shape a drift item carries (detect.ts) and the
 * attribution fills in (changed-by.ts). In a module of its own so that neither imports the other
 * for it (an import cycle).
 */

/** `items[].changed_by` of the drift report (contract name): who made the live side what it is. */
export interface ChangedBy {
  /** The event's origin: CONSOLE, API, CLI, TERRAFORM_PROVIDER, GIT, QOVERY_INTERNAL... */
  origin: string;
  /** A console user's e-mail address, or the name of the API token. */
  triggered_by: string;
  /** When (ISO 8601, as the audit log has it). */
  at: string;
}
