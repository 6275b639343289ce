import { randomUUID } from 'node:crypto';
import { Client, escapeLiteral } from 'pg';
import { dropSchemas, ensureDatabase, isolatedName, testInfra } from '@homing/testing';
import { Database, DatabaseEventLedger, dataSourceOptions, migrateSchema, prepared, withDatabase, type DatabaseOptions } from '../src';

interface Widget {
  id: number;
  name: string;
}

// The one way repositories reach PostgreSQL, against real PostgreSQL in a schema of its own.
describe('Database', () => {
  const infra = testInfra();
  const database: DatabaseOptions = { url: infra.databaseUrl, schema: `database_${isolatedName()}`, applicationName: 'database-test', migrations: [] };
  let db: Database;
  let close: () => void;
  let closed: Promise<void>;

  const names = async () => (await db.rows<{ name: string }>('SELECT name FROM widgets ORDER BY id')).map((row) => row.name);

  beforeAll(async () => {
    await ensureDatabase(infra.databaseUrl);
    await migrateSchema(dataSourceOptions(database) as Parameters<typeof migrateSchema>[0]);
    // Held open for the whole suite: withDatabase closes the connection when the work ends.
    await new Promise<void>((opened) => {
      closed = withDatabase(database, (handle) => {
        db = handle;
        opened();
        return new Promise<void>((resolve) => (close = resolve));
      });
    });
    await db.affected('CREATE TABLE widgets (id serial PRIMARY KEY, name text NOT NULL UNIQUE)');
  });

  beforeEach(() => db.affected('TRUNCATE widgets RESTART IDENTITY'));

  afterAll(async () => {
    close?.();
    await closed;
    await dropSchemas(infra.databaseUrl, [database.schema]);
  });

  it('returns every row of a SELECT and of a write with RETURNING', async () => {
    const inserted = await db.rows<Widget>("INSERT INTO widgets (name) VALUES ('a'), ('b') RETURNING id, name");
    expect(inserted).toEqual([
      { id: 1, name: 'a' },
      { id: 2, name: 'b' },
    ]);
    expect(await db.rows<Widget>('SELECT id, name FROM widgets WHERE name = ANY($1::text[]) ORDER BY id', [['b', 'c']])).toEqual([{ id: 2, name: 'b' }]);
    expect(await db.rows('SELECT id FROM widgets WHERE name = $1', ['none'])).toEqual([]);
  });

  it('sends several statements in one round trip on a connection of its own, and ends a failed one’s transaction', async () => {
    const answers = await db.withConnection((connection) =>
      connection.statements<{ name: string }>(['BEGIN', "INSERT INTO widgets (name) VALUES ('a'), ('b') RETURNING name", 'COMMIT', 'SELECT name FROM widgets ORDER BY id']),
    );
    expect(answers).toEqual([[], [{ name: 'a' }, { name: 'b' }], [], [{ name: 'a' }, { name: 'b' }]]);
    // A statement that fails inside a transaction: nothing after it runs, and the transaction does not outlive the work.
    await expect(
      db.withConnection(async (connection) => {
        await connection.statements(['BEGIN', "INSERT INTO widgets (name) VALUES ('c')"]);
        await connection.statements(["INSERT INTO widgets (name) VALUES ('a')", 'COMMIT']);
      }),
    ).rejects.toThrow(/duplicate key/);
    expect(await names()).toEqual(['a', 'b']);
    // The pool still answers, on every connection it hands out.
    expect(await Promise.all(Array.from({ length: 12 }, () => db.one<{ ok: number }>('SELECT 1 AS ok')))).toEqual(Array.from({ length: 12 }, () => ({ ok: 1 })));
  });

  it('returns the first row, or undefined when there is none', async () => {
    await db.affected("INSERT INTO widgets (name) VALUES ('a'), ('b')");
    expect(await db.one<Widget>('SELECT id, name FROM widgets ORDER BY id DESC')).toEqual({ id: 2, name: 'b' });
    expect(await db.one<Widget>("UPDATE widgets SET name = 'c' WHERE name = 'a' RETURNING id, name")).toEqual({ id: 1, name: 'c' });
    expect(await db.one('SELECT id FROM widgets WHERE name = $1', ['a'])).toBeUndefined();
    expect(await db.one("DELETE FROM widgets WHERE name = 'none' RETURNING id")).toBeUndefined();
  });

  it('counts the rows an INSERT, an UPDATE and a DELETE wrote', async () => {
    expect(await db.affected("INSERT INTO widgets (name) VALUES ('a'), ('b'), ('c')")).toBe(3);
    expect(await db.affected("INSERT INTO widgets (name) VALUES ('a'), ('d') ON CONFLICT (name) DO NOTHING")).toBe(1);
    expect(await db.affected("UPDATE widgets SET name = name || '!' WHERE name <> 'a'")).toBe(3);
    expect(await db.affected("UPDATE widgets SET name = 'z' WHERE name = 'none'")).toBe(0);
    expect(await db.affected('DELETE FROM widgets WHERE id <= $1', [2])).toBe(2);
    expect(await names()).toEqual(['c!', 'd!']);
  });

  it('commits a transaction whose work resolves, with what the work returned', async () => {
    const id = await db.transaction(async (transaction) => {
      await db.affected("INSERT INTO widgets (name) VALUES ('a')", [], transaction);
      // Inside, the transaction sees its own write; outside, nobody does until it commits.
      expect(await db.one('SELECT id FROM widgets WHERE name = $1', ['a'])).toBeUndefined();
      return (await db.one<Widget>("SELECT id FROM widgets WHERE name = 'a'", [], transaction))?.id;
    });
    expect(id).toBe(1);
    expect(await names()).toEqual(['a']);
  });

  it('rolls back every statement of a transaction whose work throws, and throws the error on', async () => {
    await db.affected("INSERT INTO widgets (name) VALUES ('kept')");
    const failure = new Error('the change failed');
    await expect(
      db.transaction(async (transaction) => {
        await db.affected("INSERT INTO widgets (name) VALUES ('a')", [], transaction);
        await db.affected("UPDATE widgets SET name = 'changed' WHERE name = 'kept'", [], transaction);
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await names()).toEqual(['kept']);
  });

  it('rolls back a transaction whose statement fails', async () => {
    await expect(
      db.transaction(async (transaction) => {
        await db.affected("INSERT INTO widgets (name) VALUES ('a')", [], transaction);
        await db.affected("INSERT INTO widgets (name) VALUES ('a')", [], transaction);
      }),
    ).rejects.toMatchObject({ code: '23505' });
    expect(await names()).toEqual([]);
  });

  it('sends a frame’s opening with BEGIN and its closing with COMMIT, one round trip each, the opening’s rows to the work', async () => {
    await db.affected("INSERT INTO widgets (name) VALUES ('warm')");
    const sent = jest.spyOn(Client.prototype, 'query');
    try {
      const answer = await db.transaction(
        async (transaction, opened) => {
          await db.affected("INSERT INTO widgets (name) VALUES ('work')", [], transaction);
          return opened;
        },
        { opening: "INSERT INTO widgets (name) VALUES ('opening') RETURNING name", closing: (opened) => `UPDATE widgets SET name = 'closing' WHERE name = ${escapeLiteral(String(opened[0]?.name))}` },
      );
      expect(answer).toEqual([{ name: 'opening' }]);
      expect(sent.mock.calls.map(([text]) => String(text).split(';')[0])).toEqual(['BEGIN', "INSERT INTO widgets (name) VALUES ('work')", "UPDATE widgets SET name = 'closing' WHERE name = 'opening'"]);
    } finally {
      sent.mockRestore();
    }
    expect(await names()).toEqual(['warm', 'closing', 'work']);
  });

  it('commits a frame’s work with COMMIT alone when its closing makes no statement', async () => {
    await db.transaction(async (transaction) => db.affected("INSERT INTO widgets (name) VALUES ('work')", [], transaction), {
      opening: "INSERT INTO widgets (name) VALUES ('opening')",
      closing: () => undefined,
    });
    expect(await names()).toEqual(['opening', 'work']);
  });

  it('rolls back the opening and the work of a frame whose closing fails', async () => {
    await expect(
      db.transaction(async (transaction) => db.affected("INSERT INTO widgets (name) VALUES ('work')", [], transaction), {
        opening: "INSERT INTO widgets (name) VALUES ('opening')",
        closing: () => "INSERT INTO widgets (name) VALUES ('work')",
      }),
    ).rejects.toMatchObject({ code: '23505' });
    expect(await names()).toEqual([]);
  });

  it('writes a ledger consumer’s ledger row in its BEGIN’s round trip, and runs the work of each event once', async () => {
    const ledger = new DatabaseEventLedger(db);
    const [first, second] = [randomUUID(), randomUUID()];
    const handled: string[] = [];
    await ledger.applyOnce('ledger-test', first, async () => void handled.push('warm'));
    const sent = jest.spyOn(Client.prototype, 'query');
    try {
      expect(await ledger.applyOnce('ledger-test', second, async (transaction) => void (await transaction.query("INSERT INTO widgets (name) VALUES ('second')")))).toBe(true);
      expect(sent.mock.calls.map(([text]) => String(text).trim().split(/\s/)[0])).toEqual(['BEGIN;', 'INSERT', 'COMMIT']);
    } finally {
      sent.mockRestore();
    }
    expect(await ledger.applyOnce('ledger-test', second, async () => void handled.push('again'))).toBe(false);
    // A batch: the ids it had not seen (in any case) are fresh, and only they reach the work.
    const third = randomUUID();
    const fresh = await ledger.applyEachOnce('ledger-test', [second, third.toUpperCase()], async (_transaction, ids) => void handled.push(...ids));
    expect([...fresh]).toEqual([third.toUpperCase()]);
    expect(handled).toEqual(['warm', third.toUpperCase()]);
    expect(await names()).toEqual(['second']);
  });

  it('runs a named statement again and again with other values', async () => {
    await db.affected("INSERT INTO widgets (name) VALUES ('a'), ('b')");
    const byName = { name: 'database_test_widget_by_name', text: 'SELECT id, name FROM widgets WHERE name = $1' };
    expect(await db.rows<Widget>(byName, ['a'])).toEqual([{ id: 1, name: 'a' }]);
    expect(await db.rows<Widget>(byName, ['b'])).toEqual([{ id: 2, name: 'b' }]);
    expect(await db.rows<Widget>(byName, ['none'])).toEqual([]);
  });

  it('runs a prepared statement through rows, one and affected, in and out of a transaction, keeping it on the connection', async () => {
    const insert = prepared('INSERT INTO widgets (name) VALUES ($1) RETURNING id, name');
    const byName = prepared('SELECT id, name FROM widgets WHERE name = $1');
    // The name is the text's: the same text is the same statement, another text another one.
    expect(prepared(['SELECT id, name FROM widgets', 'WHERE name = $1'].join(' '))).toBe(byName);
    expect(insert.name).not.toBe(byName.name);

    expect(await db.rows<Widget>(insert, ['a'])).toEqual([{ id: 1, name: 'a' }]);
    expect(await db.one<Widget>(byName, ['a'])).toEqual({ id: 1, name: 'a' });
    expect(await db.one<Widget>(byName, ['none'])).toBeUndefined();
    const kept = await db.transaction(async (transaction) => {
      expect(await db.affected(insert, ['b'], transaction)).toBe(1);
      expect(await transaction.query<Widget>(byName, ['b'])).toEqual([{ id: 2, name: 'b' }]);
      // Parsed once on this connection and kept there under its name (an unnamed statement is not kept).
      return db.rows<{ name: string }>('SELECT name FROM pg_prepared_statements WHERE name = ANY($1::text[]) ORDER BY name', [[insert.name, byName.name]], transaction);
    });
    expect(kept.map((row) => row.name)).toEqual([insert.name, byName.name].sort());
    expect(await names()).toEqual(['a', 'b']);
  });

  it('closes a connection whose prepared statement a migration made stale, so the next transaction runs on another', async () => {
    await db.affected('CREATE TABLE gauges (id integer PRIMARY KEY, level integer NOT NULL)');
    await db.affected('INSERT INTO gauges (id, level) VALUES (1, 5)');
    const level = prepared('SELECT level FROM gauges WHERE id = $1');
    const readLevel = () => db.transaction((transaction) => transaction.query<{ level: unknown }>(level, [1]));
    expect(await readLevel()).toEqual([{ level: 5 }]);
    // A migration changes the type of a column the statement returns, as a deploy's migration Job would.
    await db.affected('ALTER TABLE gauges ALTER COLUMN level TYPE bigint');
    // The connection that prepared it cannot run it again ("cached plan must not change result type").
    await expect(readLevel()).rejects.toMatchObject({ code: '0A000' });
    // It was closed, not given back to the pool: the next transaction prepares the statement afresh.
    expect(await readLevel()).toEqual([{ level: '5' }]);
    await db.affected('DROP TABLE gauges');
  });
});
