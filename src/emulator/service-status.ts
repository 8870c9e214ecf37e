/**
 * The status record (seed 2.9) every service gets when it is created. The ops half owns how it
 * changes afterwards (deploy, stop, restart, delete); the CRUD half only creates it.
 */
import type { EmulatorContext } from './context.js';
import type { ApiRecord } from './state.js';

export function initialServiceStatus(serviceId: string): ApiRecord & Record<string, unknown> {
  return {
    id: serviceId,
    // created_at keeps the ApiRecord shape; it is not part of the status schema and never served.
    created_at: new Date(0).toISOString(),
    state: 'READY',
    service_deployment_status: 'NEVER_DEPLOYED',
    is_part_last_deployment: false,
    status_details: { action: 'UNKNOWN', status: 'NEVER', sub_action: 'NONE' },
    deployment_request_id: null,
    deployment_requests_count: 0,
  };
}

/** Called once for every new service, after its record is stored: it also announces the service. */
export function createServiceStatus(ctx: EmulatorContext, serviceId: string): void {
  ctx.state.serviceStatuses[serviceId] = initialServiceStatus(serviceId);
  ctx.events.emit('created', { kind: 'service', id: serviceId });
}
