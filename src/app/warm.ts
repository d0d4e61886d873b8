// The query service as the faces reach it: the warm path (a call over the owner-only socket with
// its fallbacks) and the service's configuration. Starting a service is query-service.ts.
// Nothing here may load zod up front: `search` and `ask` import this module on every keystroke's
// path, and the settings' schema loads only when a config.json exists (service-config-file.ts).

export { readServiceSettings as readServiceConfig } from '../service/service-config-file.js';
export { searchViaService, serviceStatus, stopService } from '../service/warm-path.js';
