/**
 * `driftless serve`: runs the local API emulator until SIGINT/SIGTERM.
 *
 * Contract (docs/emulator.md): exactly one JSON line on stdout once listening,
 *   {"url":"http://127.0.0.1:41234","organization_id":"<uuid>","tokens":{"ADMIN":"…","WRITE":"…","DEPLOY":"…","READ":"…","CONSOLE":"<jwt>"}}
 * (CONSOLE: the console user's Bearer JWT, whose writes the audit log shows as origin CONSOLE), then logs on stderr (never a token or a secret).
 */
import type { Argv } from 'yargs';
import type { CliCommand } from '../command.js';
import { EXIT, type CliIO } from '../io.js';
import { decimalOption, durationOption, integerOption } from '../option-values.js';
// The emulator (fastify, swagger, its schemas) is loaded only when `serve` runs: importing it
// statically cost every other command about half a second of start-up (bench, issue 6).

interface ServeArgs {
  port: number;
  host: string;
  data?: string;
  seed?: string;
  'rate-limit': number;
  'rate-window': number;
  latency: number;
  'deploy-duration': number;
  'fail-deploy'?: string;
  'fault-rate': number;
  'fault-seed': number;
  'audit-retention'?: number;
  'audit-drop': number;
  'audit-delay'?: number;
}

function untilSignal(io: CliIO): Promise<void> {
  if (io.interrupted) return io.interrupted;
  return new Promise((resolve) => {
    const done = () => {
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      resolve();
    };
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
}

export const serveCommand: CliCommand<ServeArgs> = {
  command: 'serve',
  describe: 'Run the local emulator of the Infrastructure Management API',
  builder: (y: Argv) =>
    y
      .option('port', integerOption('port', { min: 0, max: 65535, default: 0, describe: 'Port to listen on (0 = any free port)' }))
      .option('host', { type: 'string', default: '127.0.0.1', describe: 'Interface to listen on' })
      .option('data', { type: 'string', describe: 'Persist the state to FILE (survives restarts and kills)' })
      .option('seed', { type: 'string', describe: 'Start from the JSON fixture FILE (when --data holds no state yet)' })
      .option('rate-limit', integerOption('rate-limit', { min: 1, default: 1000, describe: 'Requests allowed per token per window' }))
      .option('rate-window', integerOption('rate-window', { min: 1, default: 3600, describe: 'Rate-limit window, seconds' }))
      .option('latency', integerOption('latency', { min: 0, max: 600_000, default: 0, describe: 'Delay every response by MS milliseconds' }))
      .option('deploy-duration', integerOption('deploy-duration', { min: 0, max: 3_600_000, default: 3000, describe: 'Duration of a simulated deployment, ms' }))
      .option('fail-deploy', { type: 'string', describe: 'Deployments of services whose name matches GLOB fail' })
      .option('fault-rate', decimalOption('fault-rate', { min: 0, max: 1, default: 0, describe: 'Fraction of requests failing with 500/503 or a dropped connection' }))
      .option('fault-seed', integerOption('fault-seed', { min: 0, default: 1, describe: 'Seed of the fault generator (reproducible chaos)' }))
      .option('audit-retention', durationOption('audit-retention', { minMs: 1000, maxMs: 3650 * 86_400_000, bounds: 'from 1s to 87600h', describe: "Keep audit events this long, when shorter than the organization's audit_logs_retention_in_days (30 days: 720h), e.g. 10m" }))
      .option('audit-drop', decimalOption('audit-drop', { min: 0, max: 1, default: 0, describe: 'Fraction of audit events never recorded, as a real log may miss them (drawn from --fault-seed: reproducible)' }))
      .option('audit-delay', durationOption('audit-delay', { minMs: 0, maxMs: 86_400_000, bounds: 'from 0s to 24h', describe: "List each audit event only this long after its write, with the write's timestamp, e.g. 30s" })),
  async run(args, io) {
    const { EmulatorStartError, startEmulator } = await import('../../emulator/server.js');
    const { lineLogger } = await import('../../emulator/context.js');
    const logger = lineLogger((s) => io.stderr.write(s));
    let em;
    try {
      em = await startEmulator({
        host: args.host,
        port: args.port,
        dataFile: args.data,
        seedFile: args.seed,
        rateLimit: args['rate-limit'],
        rateWindowS: args['rate-window'],
        latencyMs: args.latency,
        deployDurationMs: args['deploy-duration'],
        failDeployGlob: args['fail-deploy'],
        faultRate: args['fault-rate'],
        faultSeed: args['fault-seed'],
        auditRetentionMs: args['audit-retention'],
        auditDropRate: args['audit-drop'],
        auditDelayMs: args['audit-delay'],
        logger,
      });
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      const why = err instanceof EmulatorStartError ? e.message : e.code === 'EADDRINUSE' ? `port ${args.port} on ${args.host} is already in use` : e.code === 'EACCES' ? `not allowed to listen on ${args.host}:${args.port}` : e.message;
      io.stderr.write(`driftless serve: cannot start: ${why}\n`);
      return EXIT.error;
    }
    io.stdout.write(`${JSON.stringify({ url: em.url, organization_id: em.organizationId, tokens: em.tokens })}\n`);
    logger.info(`emulator listening on ${em.url}${args.data ? ` (state persisted to ${args.data})` : ' (in memory)'}; Ctrl-C to stop`);
    await untilSignal(io);
    logger.info('stopping');
    await em.close();
    return EXIT.ok;
  },
};
