/**
 * The command table. Each command lives in its own module; add it here to expose it.
 */
import type { CliCommand } from '../command.js';
import { validateCommand } from './validate.js';

export const commands: CliCommand<any>[] = [validateCommand];
