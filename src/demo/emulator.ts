/**
 * The demo's emulator: in-process, short deployments, and two ways in: driftless's own token
 * (ADMIN, an API token) and the console user's (the emulator's CONSOLE JWT), with which the
 * demo's "console" edits are made, so that the organization's audit log says a person changed
 * them in the console (origin CONSOLE, triggered_by ops-oncall@example.com), as on the platform.
 */
import { createApiClient } from '../api/index.js';
import { portFromClient } from '../live/api-port.js';
import { startEmulator, type RunningEmulator } from '../emulator/server.js';
import type { DemoEmulator } from './run-demo.js';

export async function startDemoEmulator(deployDurationMs: number, started?: (em: RunningEmulator) => void): Promise<DemoEmulator> {
  const em = await startEmulator({ port: 0, deployDurationMs, rateLimit: 100_000 });
  started?.(em);
  // A JWT: the client sends it as `Bearer` (src/api/auth.ts), as the console does.
  const console = createApiClient({ baseUrl: em.url, token: em.tokens.CONSOLE });
  return {
    url: em.url,
    organizationId: em.organizationId,
    token: em.tokens.ADMIN,
    consoleApi: portFromClient(console),
    close: async () => {
      await console.close();
      await em.close();
    },
  };
}
