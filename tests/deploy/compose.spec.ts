import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv, { type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import { asArray, asRecord, MIGRATING_APPS, NEST_APPS, parseDockerfile, parseYaml, read, root, stageNamed, type Json } from './support';

/** The vendored Compose Specification schema (README.md here says where it comes from). */
function composeValidator() {
  const schema = JSON.parse(read('tests/deploy/compose-spec.schema.json')) as Json;
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  // The schema names its meta-schema as https://json-schema.org/draft-07/schema, a spelling Ajv does not know.
  const draft7 = JSON.parse(readFileSync(require.resolve('ajv/dist/refs/json-schema-draft-07.json'), 'utf8')) as Json;
  ajv.addMetaSchema({ ...draft7, $id: String(schema.$schema) });
  // Compose's own format for durations ("10s", "1m30s").
  ajv.addFormat('duration', /^(\d+(\.\d+)?(ns|us|ms|s|m|h))+$/);
  return ajv.compile(schema);
}

const formatErrors = (errors: ErrorObject[] | null | undefined) =>
  (errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message}${error.params ? ` ${JSON.stringify(error.params)}` : ''}`);

interface ComposeBuild {
  context?: string;
  dockerfile?: string;
  target?: string;
  args?: Record<string, string> | string[];
}

const buildOf = (service: Json): ComposeBuild | undefined =>
  typeof service.build === 'string' ? { context: service.build } : (service.build as ComposeBuild | undefined);
const buildArgs = (build: ComposeBuild): string[] =>
  Array.isArray(build.args) ? build.args.map((arg) => arg.split('=')[0]) : Object.keys(build.args ?? {});

describe('docker-compose.yml', () => {
  const validate = composeValidator();
  const compose = parseYaml(read('docker-compose.yml'), 'docker-compose.yml');
  const services = asRecord(compose.services) as Record<string, Json>;

  it('is valid against the Compose Specification schema', () => {
    // Validated before interpolation, as written: every ${VAR} here sits in a string-typed field.
    expect(validate(compose) ? [] : formatErrors(validate.errors)).toEqual([]);
  });

  it('fails the schema with an unknown top-level key, a misspelt service key or an unknown depends_on condition', () => {
    expect(validate({ ...compose, servces: {} })).toBe(false);
    expect(formatErrors(validate.errors).join('\n')).toContain('servces');
    expect(validate({ services: { api: { image: 'x', healthchek: { test: ['CMD', 'true'] } } } })).toBe(false);
    expect(validate({ services: { api: { image: 'x', depends_on: { db: { condition: 'service_ready' } } }, db: { image: 'y' } } })).toBe(false);
  });

  it('has the infrastructure the product needs: PostgreSQL, Redis with AOF and no eviction, NATS with JetStream and monitoring, Mailpit', () => {
    expect(String(services.postgres?.image)).toMatch(/^postgres:/);
    expect(asArray(services.redis?.command)).toEqual(expect.arrayContaining(['--appendonly', 'yes', '--maxmemory-policy', 'noeviction']));
    expect(asArray(services.nats?.command)).toEqual(expect.arrayContaining(['-js', '-m', '8222']));
    expect(String(services.mailpit?.image)).toMatch(/mailpit/);
  });

  it('has a service for every app, each Nest app built from its own APP and listening on its own port', () => {
    for (const app of [...Object.keys(NEST_APPS), 'web']) expect(Object.keys(services)).toContain(app);
    for (const app of Object.keys(NEST_APPS)) {
      expect({ app, APP: asRecord(buildOf(services[app])?.args).APP }).toEqual({ app, APP: app });
      expect({ app, PORT: asRecord(services[app].environment).PORT }).toEqual({ app, PORT: String(NEST_APPS[app]) });
    }
  });

  it('builds from Dockerfiles that exist, with targets and build args they define', () => {
    const problems: string[] = [];
    for (const [name, service] of Object.entries(services)) {
      const build = buildOf(service);
      if (!build) continue;
      const dockerfilePath = join(build.context ?? '.', build.dockerfile ?? 'Dockerfile');
      if (!existsSync(join(root, dockerfilePath))) {
        problems.push(`${name}: ${dockerfilePath} does not exist`);
        continue;
      }
      const dockerfile = parseDockerfile(read(dockerfilePath));
      const target = build.target ?? dockerfile.stages[dockerfile.stages.length - 1].name;
      if (!stageNamed(dockerfile, target)) problems.push(`${name}: ${dockerfilePath} has no stage "FROM ... AS ${target}"`);
      const declaredArgs = dockerfile.stages.flatMap((stage) =>
        stage.instructions.filter((instruction) => instruction.getKeyword() === 'ARG').map((instruction) => (instruction.getArgumentsContent() ?? '').split('=')[0]),
      );
      for (const arg of buildArgs(build)) if (!declaredArgs.includes(arg)) problems.push(`${name}: build arg ${arg} is not an ARG of ${dockerfilePath}`);
    }
    expect(problems).toEqual([]);
  });

  it('gives services sharing an image tag the same build, so neither overwrites the other', () => {
    const byImage = new Map<string, string[]>();
    for (const service of Object.values(services)) {
      if (!service.build || typeof service.image !== 'string') continue;
      byImage.set(service.image, [...(byImage.get(service.image) ?? []), JSON.stringify(service.build)]);
    }
    for (const [image, builds] of byImage) expect({ image, builds: new Set(builds).size }).toEqual({ image, builds: 1 });
  });

  it('starts each service only after its dependencies are healthy or its migration has completed', () => {
    const problems: string[] = [];
    for (const [name, service] of Object.entries(services)) {
      for (const [dependency, condition] of Object.entries(asRecord(service.depends_on))) {
        const wanted = String(asRecord(condition).condition);
        if (!services[dependency]) problems.push(`${name}: depends on unknown service ${dependency}`);
        else if (wanted === 'service_healthy' && !services[dependency].healthcheck) problems.push(`${name}: waits for ${dependency} to be healthy, which has no healthcheck`);
      }
    }
    for (const app of MIGRATING_APPS) {
      const migration = Object.entries(services).find(([, service]) => asArray(service.command).join(' ') === `node dist/apps/${app}/main.js migrate`);
      if (!migration) problems.push(`${app}: no service runs "node dist/apps/${app}/main.js migrate"`);
      else if (asRecord(asRecord(services[app].depends_on)[migration[0]]).condition !== 'service_completed_successfully') {
        problems.push(`${app}: does not wait for ${migration[0]} to complete successfully`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('configures the Nest apps for production, checks their readiness and takes keys from the environment', () => {
    for (const app of Object.keys(NEST_APPS)) {
      const environment = asRecord(services[app].environment);
      expect({ app, NODE_ENV: environment.NODE_ENV, NATS_URL: environment.NATS_URL }).toEqual({ app, NODE_ENV: 'production', NATS_URL: 'nats://nats:4222' });
      expect(asArray(asRecord(services[app].healthcheck).test).join(' ')).toContain('/health/ready');
    }
    expect(asRecord(services.notifications.environment).NOTIFICATIONS_ROLE).toBe('all');
    expect(asRecord(services.identity.environment).JWT_PRIVATE_KEY).toMatch(/^\$\{JWT_PRIVATE_KEY:\?/);
    expect(asRecord(services.identity.environment).LOGIN_CODE_KEY).toMatch(/^\$\{LOGIN_CODE_KEY:\?/);
  });

  it('trusts the forwarded client address from the web proxy alone', () => {
    // Behind the web nginx every browser would otherwise share nginx's address, and with it one rate limit; trusting a
    // whole range would let a client reaching the gateway directly on its published port name any address it likes.
    const proxies = String(asRecord(services.gateway.environment).TRUSTED_PROXIES ?? '');
    const webAddress = asRecord(asRecord(services.web.networks).default).ipv4_address;
    expect(proxies).toBe(webAddress);
    const [subnet] = asArray(asRecord(asRecord(asRecord(compose.networks).default).ipam).config).map((entry) => String(asRecord(entry).subnet));
    const [network, bits] = subnet.split('/');
    const asNumber = (address: string) => address.split('.').reduce((sum, octet) => sum * 256 + Number(octet), 0);
    // The address lies in the network's subnet, or compose would refuse it.
    const block = 2 ** (32 - Number(bits));
    expect(Math.floor(asNumber(proxies) / block)).toBe(Math.floor(asNumber(network) / block));
  });

  it('declares every named volume it mounts', () => {
    const declared = Object.keys(asRecord(compose.volumes));
    const mounted = Object.values(services).flatMap((service) =>
      asArray(service.volumes)
        .map((volume) => (typeof volume === 'string' ? volume.split(':')[0] : String(asRecord(volume).source)))
        .filter((source) => !/^[./~]/.test(source)),
    );
    for (const volume of mounted) expect(declared).toContain(volume);
  });
});
