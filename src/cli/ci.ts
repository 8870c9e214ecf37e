/**
 * Whether the command runs in CI, from the injected environment's `CI` (set to `true` by GitHub
 * Actions, GitLab CI, CircleCI, Buildkite, Travis...; some set `1`).
 *
 * In CI, next-step hints ("To perform exactly these actions, run: driftless apply FILE") are left
 * out: the workflow, not the reader of its log, decides what runs next, and a hint to run a command
 * by hand there is noise or, worse, an invitation to apply from a laptop. What stays: the facts
 * ("Saved the plan to FILE"), every error's remedy (what to change so that it passes), and a usage
 * error's "Run 'driftless COMMAND --help'" line, which in a log points whoever fixes the workflow
 * file to where the options are listed.
 */
export function isCI(env: NodeJS.ProcessEnv): boolean {
  const v = (env.CI ?? '').trim().toLowerCase();
  return v !== '' && v !== 'false' && v !== '0';
}
