/**
 * The route plugins of the emulator. app.ts registers each of them once; requests under `/api/v1`
 * are rewritten to the root (seed section 9). A plugin only declares routes and keeps no state.
 *
 * `initializers` run once per emulator, after the context is built and before the server listens:
 * the place to install ops hooks, subscribe to events and resume operations found in the state.
 */
import type { FastifyInstance } from 'fastify';
import type { EmulatorContext } from '../context.js';
import { organizationRoutes } from './organization.js';
import { projectRoutes } from './projects.js';
import { serviceRoutes } from './services.js';
import { stageRoutes } from './stages.js';
import { groupRoutes } from './groups.js';
import { clusterRoutes } from './clusters.js';
import { helmRepositoryRoutes } from './helm-repositories.js';
import { alertRoutes } from './alerts.js';
import { webhookRoutes } from './webhooks.js';
import { linkRoutes } from './links.js';
import { initVariables, variableRoutes } from '../variables/index.js';
import { initOps, opsRoutes } from '../ops/index.js';
import { initWebhookDelivery, webhookDeliveryRoutes } from '../webhooks/index.js';
import { auditRoutes } from '../audit/routes.js';

export type RoutePlugin = (app: FastifyInstance, ctx: EmulatorContext) => void | Promise<void>;
export type Initializer = (ctx: EmulatorContext) => void;

export const routePlugins: RoutePlugin[] = [
  organizationRoutes,
  projectRoutes,
  serviceRoutes,
  stageRoutes,
  groupRoutes,
  clusterRoutes,
  helmRepositoryRoutes,
  alertRoutes,
  webhookRoutes,
  linkRoutes,
  variableRoutes,
  opsRoutes,
  webhookDeliveryRoutes,
  auditRoutes,
];

export const initializers: Initializer[] = [initVariables, initOps, initWebhookDelivery];
