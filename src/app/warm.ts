// The query service as the faces reach it: the warm path (a call over the owner-only socket with
// its fallbacks) and the service's configuration. Starting a service is query-service.ts.

export { readServiceConfig } from '../service/service-config.js';
export { searchViaService, serviceStatus, stopService } from '../service/warm-path.js';
