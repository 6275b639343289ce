import type { Client } from 'pg';

/**
 * How many sessions wait on the session `pid`, directly or behind one that waits on it; with `running`, only those
 * whose statement contains it. Tests that hold a transaction open with a lock of their own (a trigger waiting on an
 * advisory lock) wait on this to know the other side has reached that lock.
 */
export async function blockedBehind(db: Pick<Client, 'query'>, pid: number, running = ''): Promise<number> {
  const { rows } = await db.query<{ blocked: number }>(
    `WITH direct AS (SELECT pid FROM pg_stat_activity WHERE $1::int = ANY (pg_blocking_pids(pid)))
     SELECT count(*)::int AS blocked FROM pg_stat_activity
      WHERE (pid IN (SELECT pid FROM direct) OR pg_blocking_pids(pid) && ARRAY(SELECT pid FROM direct)) AND strpos(query, $2) > 0`,
    [pid, running],
  );
  return rows[0].blocked;
}
