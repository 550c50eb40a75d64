import type { Role } from '../db/schema.js'

export type { Role }

/** Each role includes the ones before it: a superuser may do everything an admin may. */
export const roles = ['user', 'admin', 'superuser'] as const satisfies readonly Role[]

export function hasRole(actual: Role, required: Role): boolean {
  return roles.indexOf(actual) >= roles.indexOf(required)
}
