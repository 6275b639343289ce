// Every place that runs a service gives it an environment its own config schema accepts, and sets no variable (beside
// the shared ConfigMap / x-env) that the schema does not know: it would be silently ignored (identity was given
// JWT_PUBLIC_KEY, which it did not check, while the manifests said it did).
import { spawnSync } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { parseAllDocuments } from 'yaml';
import { loadGatewayConfig } from '../../apps/gateway/src/config/gateway.config';
import { loadIdentityConfig } from '../../apps/identity/src/config/identity.config';
import { loadItemsConfig } from '../../apps/items/src/config/items.config';
import { loadMailRelayConfig } from '../../apps/mail-relay/src/config/mail-relay.config';
import { loadMessagingConfig } from '../../apps/messaging/src/config/messaging.config';
import { loadNotificationsConfig } from '../../apps/notifications/src/config/notifications.config';
import { asArray, asRecord, parseYaml, read, root, type Json } from './support';

const LOADERS: Record<string, (env: NodeJS.ProcessEnv) => object> = {
  gateway: loadGatewayConfig,
  identity: loadIdentityConfig,
  items: loadItemsConfig,
  'mail-relay': loadMailRelayConfig,
  messaging: loadMessagingConfig,
  notifications: loadNotificationsConfig,
};

const ec = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const vapid = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const vapidJwk = vapid.privateKey.export({ format: 'jwk' });
/** What an operator puts in each Secret key (or compose variable): a valid value of its kind. */
function secretValue(key: string): string {
  if (/JWT_PRIVATE_KEY/.test(key)) return ec.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  if (/JWT_(PREVIOUS_)?PUBLIC_KEY/.test(key)) return ec.publicKey.export({ type: 'spki', format: 'pem' }).toString();
  if (key === 'VAPID_PUBLIC_KEY') return Buffer.from(vapid.publicKey.export({ type: 'spki', format: 'der' }).subarray(-65)).toString('base64url');
  if (key === 'VAPID_PRIVATE_KEY') return String(vapidJwk.d);
  if (key === 'VAPID_SUBJECT') return 'mailto:ops@example.com';
  if (key === 'LOGIN_CODE_KEY') return randomBytes(48).toString('base64');
  if (key === 'DATABASE_URL') return 'postgres://homing:secret@homing-db-rw:5432/homing';
  if (key === 'REDIS_URL') return 'redis://:secret@redis.redis.svc.cluster.local:6379';
  if (key === 'SMTP_URL') return 'smtp://user:secret@smtp.example.com:587';
  // homing-nats-credentials: one key per NATS user
  return `nats://${key}:secret@nats.nats.svc.cluster.local:4222`;
}

/** The variables a schema knows: the keys of what it returns for a valid environment (zod strips the rest). */
function knownKeys(app: string): Set<string> {
  const env: NodeJS.ProcessEnv = {};
  for (const key of ['JWT_PRIVATE_KEY', 'JWT_PUBLIC_KEY', 'VAPID_PUBLIC_KEY', 'VAPID_PRIVATE_KEY', 'LOGIN_CODE_KEY']) env[key] = secretValue(key);
  const keys = new Set(Object.keys(LOADERS[app](env)));
  // Optional variables without a default do not appear unless set.
  for (const optional of ['WEB_DIST', 'JWT_PREVIOUS_PUBLIC_KEY', 'LOGIN_CODE_KEY', 'RELAY_TLS_CERT_FILE', 'RELAY_TLS_KEY_FILE', 'BULLMQ_PREFIX', 'DATABASE_SCHEMA', 'OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_TRACES_SAMPLER_ARG']) keys.add(optional);
  // NODE_OPTIONS is Node's own.
  keys.add('NODE_OPTIONS');
  return keys;
}

function tryLoad(app: string, env: NodeJS.ProcessEnv): string | undefined {
  try {
    LOADERS[app](env);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

const appOfImage = (image: string) => image.replace(/^.*homing\//, '').replace(/:.*$/, '');

describe('Kubernetes workloads against their services’ config schemas', () => {
  const kubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' });
  const render = (overlay: string) => {
    const result = spawnSync('kubectl', ['kustomize', `${root}/k8s/overlays/${overlay}`], { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(result.stderr);
    return parseAllDocuments(result.stdout).map((document) => document.toJS() as Json);
  };

  (kubectl.status === 0 ? it.each(['dev', 'prod']) : it.skip.each(['dev', 'prod']))('%s: every Deployment and Job starts with its configuration', (overlay) => {
    const objects = render(overlay);
    const configMaps = new Map(objects.filter((object) => object.kind === 'ConfigMap').map((object) => [String(asRecord(object.metadata).name), asRecord(object.data) as Record<string, string>]));
    const problems: string[] = [];
    for (const workload of objects.filter((object) => object.kind === 'Deployment' || object.kind === 'Job')) {
      const name = `${String(workload.kind)}/${String(asRecord(workload.metadata).name)}`;
      const container = asRecord(asArray(asRecord(asRecord(asRecord(workload.spec).template).spec).containers)[0]);
      const app = appOfImage(String(container.image));
      if (!LOADERS[app]) continue; // web (nginx)
      // The image's ENV (deploy/docker/Dockerfile): NODE_ENV=production, and WEB_DIST in the gateway image.
      const env: NodeJS.ProcessEnv = { NODE_ENV: 'production', ...(app === 'gateway' ? { WEB_DIST: '/app/dist/apps/web' } : {}) };
      for (const source of asArray(container.envFrom).map(asRecord)) Object.assign(env, configMaps.get(String(asRecord(source.configMapRef).name)) ?? {});
      const known = knownKeys(app);
      for (const variable of asArray(container.env).map(asRecord)) {
        const name_ = String(variable.name);
        if (!known.has(name_)) problems.push(`${name}: sets ${name_}, which ${app}'s config schema does not know`);
        if (variable.value !== undefined) env[name_] = String(variable.value);
        const secret = asRecord(asRecord(variable.valueFrom).secretKeyRef);
        if (secret.key && secret.optional !== true) env[name_] = secretValue(String(secret.key));
      }
      const failure = tryLoad(app, env);
      if (failure) problems.push(`${name} (${app}): ${failure}`);
    }
    expect(problems).toEqual([]);
  });
});

describe('docker-compose.yml against the services’ config schemas', () => {
  const compose = parseYaml(read('docker-compose.yml'), 'docker-compose.yml');
  const interpolate = (value: string) =>
    value.replace(/\$\{([A-Z_]+)(?::?([-?])([^}]*))?\}/g, (_all, name: string, operator: string | undefined, word: string | undefined) => (operator === '-' ? (word ?? '') : secretValue(name)));

  it('gives every Nest app service an environment its schema accepts, and no variable of its own it does not know', () => {
    const services = asRecord(compose.services);
    const problems: string[] = [];
    const shared = new Set(Object.keys(asRecord(compose['x-env'])));
    for (const [name, definition] of Object.entries(services)) {
      const build = asRecord(asRecord(definition).build);
      const app = String(asRecord(build.args).APP ?? appOfImage(String(asRecord(definition).image ?? '')));
      if (!LOADERS[app]) continue;
      const env: NodeJS.ProcessEnv = { NODE_ENV: 'production', ...(app === 'gateway' ? { WEB_DIST: '/app/dist/apps/web' } : {}) };
      const known = knownKeys(app);
      for (const [key, value] of Object.entries(asRecord(asRecord(definition).environment))) {
        env[key] = interpolate(String(value));
        if (!shared.has(key) && !known.has(key)) problems.push(`${name}: sets ${key}, which ${app}'s config schema does not know`);
      }
      const failure = tryLoad(app, env);
      if (failure) problems.push(`${name} (${app}): ${failure}`);
    }
    expect(problems).toEqual([]);
  });
});
