/**
 * The default of `--verify-requests`, in a module of its own: the CLI's option table shows it in
 * `--help`, and importing src/live/verify.ts for one number loaded the whole live reader (about
 * fifty modules) into every command, `validate` included (issue 21: every command's start-up counts).
 */
export const DEFAULT_VERIFY_REQUESTS = 5;
