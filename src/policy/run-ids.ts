/**
 * Run ids are scoped per tenant (design.md section 11): the id a caller gives (or is given) is stored as
 * `<tenant>:<id>`, so an id used in one tenant neither blocks nor reveals another tenant's. Every id that
 * enters through the API or an event is made into a key here, and every id shown is parsed back here.
 * Tenant names never contain ':', so the first ':' ends the tenant.
 */
export const runKey = (tenantId: string, id: string): string => `${tenantId}:${id}`;

/**
 * The id a tenant knows a stored run by. A run stored before ids were scoped has no tenant prefix and is
 * shown as stored.
 */
export const runName = (tenantId: string, key: string): string =>
  key.startsWith(`${tenantId}:`) ? key.slice(tenantId.length + 1) : key;
