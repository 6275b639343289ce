// The NATS users of deploy/helm/nats-values.yaml (used in prod through k8s/components/nats-credentials) must
// allow what each service subscribes to and publishes, or the server answers a permissions violation.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { read, root } from './support';

interface NatsUser {
  user: string;
  permissions?: { publish?: { allow?: string[] }; subscribe?: { allow?: string[] } };
}

/** NATS subject matching: `*` one token, `>` one or more trailing tokens. */
function matches(pattern: string, subject: string): boolean {
  const p = pattern.split('.');
  const s = subject.split('.');
  for (let index = 0; index < p.length; index++) {
    if (p[index] === '>') return s.length > index;
    if (index >= s.length || (p[index] !== '*' && p[index] !== s[index])) return false;
  }
  return p.length === s.length;
}

function sourcesUnder(directory: string): string[] {
  return readdirSync(join(root, directory)).flatMap((entry) => {
    const path = `${directory}/${entry}`;
    if (statSync(join(root, path)).isDirectory()) return entry === 'testing' ? [] : sourcesUnder(path);
    return /\.ts$/.test(entry) && !/spec\.ts$/.test(entry) ? [path] : [];
  });
}

/** Event subjects named in the constant arrays a service hands to FanOutSubscription.open (`*_SUBJECTS = [...]`). */
function fanOutSubjects(app: string): Array<{ file: string; subject: string }> {
  return sourcesUnder(`apps/${app}/src`).flatMap((file) => {
    const text = readFileSync(join(root, file), 'utf8');
    if (!/FanOutSubscription\.open/.test(text)) return [];
    return [...text.matchAll(/export const [A-Z_]+_SUBJECTS = \[([\s\S]*?)\]/g)].flatMap((match) =>
      [...match[1].matchAll(/'([a-z-]+\.[a-z.-]+\.v\d+)'/g)].map((subject) => ({ file, subject: subject[1] })),
    );
  });
}

describe('NATS users of deploy/helm/nats-values.yaml', () => {
  const values = parse(read('deploy/helm/nats-values.yaml')) as { config: { merge: { authorization: { users: NatsUser[] } } } };
  const users = new Map(values.config.merge.authorization.users.map((user) => [user.user, user]));

  // The gateway's own events, from the subject lists it opens: one it may not subscribe to fails, over and over, and its
  // caches are never live (every poll then asks messaging).
  it('lets the gateway subscribe to every event subject its caches and message streams follow', () => {
    const allowed = users.get('gateway')?.permissions?.subscribe?.allow ?? [];
    const subjects = fanOutSubjects('gateway');
    expect(subjects.length).toBeGreaterThan(5);
    const denied = subjects.filter(({ subject }) => !allowed.some((pattern) => matches(pattern, subject))).map(({ file, subject }) => `${subject} (${file})`);
    expect(denied).toEqual([]);
  });
});
