/**
 * The service's database as `/health/ready` asks it (the Database provider, under a token of its own): the health
 * check names no database class, so a service without one (the gateway, the mail relay) never loads pg for it.
 */
export const DATABASE_PROBE = Symbol('DATABASE_PROBE');

export interface DatabaseProbe {
  rows(sql: string): Promise<unknown>;
}
