// Offline checks of the deployment files: there is no Docker engine or cluster on the machines that run the
// tests, so `docker compose config`, `docker build` and `kubectl apply` cannot catch these mistakes here.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import Ajv, { type ErrorObject } from 'ajv';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Service } from 'kubernetes-models/v1/Service';
import { parseAllDocuments, parseDocument } from 'yaml';

const root = resolve(__dirname, '../..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

/** ARCHITECTURE §1 and §10: every app and the port it serves health and metrics on. */
const NEST_APPS: Record<string, number> = { gateway: 8080, identity: 3001, items: 3002, messaging: 3003, notifications: 3004 };
const APPS = [...Object.keys(NEST_APPS), 'web'];
const MIGRATING_APPS = ['identity', 'items', 'messaging', 'notifications'];

type Json = Record<string, unknown>;
const asRecord = (value: unknown): Json => (value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {});
const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** YAML as compose reads it: merge keys (`<<: *anchor`) resolved, duplicate keys refused. */
function parseYaml(text: string, source: string): Json {
  const document = parseDocument(text, { merge: true });
  if (document.errors.length) throw new Error(`${source}: ${document.errors.map((error) => error.message).join('; ')}`);
  return asRecord(document.toJS({ maxAliasCount: -1 }));
}

// ---------------------------------------------------------------------------------------------------------------
// Compose

function composeValidator() {
  const schema = JSON.parse(read('tests/deploy/compose-spec.schema.json')) as Json;
  const ajv = new Ajv({ strict: false, allErrors: true });
  // The schema names its meta-schema as https://json-schema.org/draft-07/schema, a spelling Ajv does not know.
  const draft7 = JSON.parse(readFileSync(require.resolve('ajv/dist/refs/json-schema-draft-07.json'), 'utf8')) as Json;
  ajv.addMetaSchema({ ...draft7, $id: String(schema.$schema) });
  // ajv-formats is not installed: accept any format the schema may name rather than fail to compile.
  for (const format of collectFormats(schema)) ajv.addFormat(format, true);
  return ajv.compile(schema);
}

function collectFormats(node: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(node)) node.forEach((child) => collectFormats(child, found));
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === 'format' && typeof value === 'string') found.add(value);
      else collectFormats(value, found);
    }
  }
  return found;
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

// ---------------------------------------------------------------------------------------------------------------
// Dockerfiles

interface Instruction {
  keyword: string;
  args: string;
  line: number;
}

interface Stage {
  name: string;
  from: string;
  instructions: Instruction[];
}

interface Dockerfile {
  globalArgs: Map<string, string | undefined>;
  stages: Stage[];
}

function parseDockerfile(text: string): Dockerfile {
  const instructions: Instruction[] = [];
  let pending = '';
  let start = 0;
  text.split('\n').forEach((raw, index) => {
    const line = raw.trimEnd();
    // Comment lines are dropped, even between continuation lines, as Docker does.
    if (/^\s*#/.test(line) || (!pending && !line.trim())) return;
    if (!pending) start = index + 1;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1)} `;
      return;
    }
    const match = /^\s*([A-Za-z]+)\s*(.*)$/s.exec(pending + line);
    if (match) instructions.push({ keyword: match[1].toUpperCase(), args: match[2].trim(), line: start });
    pending = '';
  });

  const globalArgs = new Map<string, string | undefined>();
  const stages: Stage[] = [];
  for (const instruction of instructions) {
    if (instruction.keyword === 'FROM') {
      const words = instruction.args.split(/\s+/).filter((word) => !word.startsWith('--'));
      const alias = words.findIndex((word) => word.toUpperCase() === 'AS');
      stages.push({ from: words[0], name: alias > 0 ? words[alias + 1] : String(stages.length), instructions: [instruction] });
    } else if (stages.length) {
      stages[stages.length - 1].instructions.push(instruction);
    } else if (instruction.keyword === 'ARG') {
      const [name, value] = instruction.args.split('=', 2);
      globalArgs.set(name.trim(), value);
    }
  }
  return { globalArgs, stages };
}

const variablesIn = (text: string) => [...text.matchAll(/\$\{?([A-Za-z_][A-Za-z0-9_]*)/g)].map((match) => match[1]);

function stageNamed(dockerfile: Dockerfile, name: string): Stage | undefined {
  return dockerfile.stages.find((stage) => stage.name === name);
}

/** Stages a stage is built from: its FROM parent, COPY --from and RUN --mount from= sources, transitively. */
function stageClosure(dockerfile: Dockerfile, name: string, seen = new Set<string>()): Set<string> {
  const stage = stageNamed(dockerfile, name);
  if (!stage || seen.has(name)) return seen;
  seen.add(name);
  const sources = [stage.from, ...stage.instructions.flatMap((instruction) => [...instruction.args.matchAll(/--(?:from|mount=[^\s]*from)=([^\s,]+)/g)].map((match) => match[1]))];
  for (const source of sources) if (stageNamed(dockerfile, source)) stageClosure(dockerfile, source, seen);
  return seen;
}

/** ENV keys a stage sees: its own and those of the stage it is FROM (ARGs, unlike ENV, do not carry over). */
function envOf(dockerfile: Dockerfile, stage: Stage): Set<string> {
  const parent = stageNamed(dockerfile, stage.from);
  const env = new Set(parent ? envOf(dockerfile, parent) : []);
  for (const instruction of stage.instructions.filter((candidate) => candidate.keyword === 'ENV')) {
    const keys = instruction.args.includes('=') ? [...instruction.args.matchAll(/(?:^|\s)([A-Za-z_][A-Za-z0-9_]*)=/g)].map((match) => match[1]) : [instruction.args.split(/\s+/)[0]];
    keys.forEach((key) => env.add(key));
  }
  return env;
}

/**
 * Every variable reference resolvable where it is used, and every ARG used. The classic slips: an ARG declared
 * before FROM (or in a parent stage) but not redeclared in the stage that uses it, so it is silently empty; and a
 * CMD reading a build ARG that does not exist at run time.
 */
function dockerfileScopeProblems(dockerfile: Dockerfile): string[] {
  const problems: string[] = [];
  const usedGlobals = new Set<string>();
  for (const stage of dockerfile.stages) {
    const env = envOf(dockerfile, stage);
    const args = new Map<string, boolean>(); // name → used
    for (const instruction of stage.instructions) {
      const where = `line ${instruction.line} (${instruction.keyword}, stage ${stage.name})`;
      const references = variablesIn(instruction.keyword === 'ARG' ? (instruction.args.split('=', 2)[1] ?? '') : instruction.args);
      for (const name of references) {
        if (instruction.keyword === 'FROM') {
          if (dockerfile.globalArgs.has(name)) usedGlobals.add(name);
          else problems.push(`${where}: \${${name}} in FROM is not an ARG declared before the first FROM`);
        } else if (['CMD', 'ENTRYPOINT', 'HEALTHCHECK'].includes(instruction.keyword)) {
          // Evaluated when the container runs, where only ENV exists.
          if (!env.has(name)) problems.push(`${where}: \${${name}} is not set by ENV, so it is empty at run time`);
        } else if (args.has(name)) args.set(name, true);
        else if (!env.has(name)) problems.push(`${where}: \${${name}} is neither an ARG of this stage nor an ENV`);
      }
      if (instruction.keyword === 'ARG') {
        const name = instruction.args.split('=', 2)[0].trim();
        args.set(name, false);
        if (dockerfile.globalArgs.has(name)) usedGlobals.add(name);
      }
    }
    for (const [name, used] of args) if (!used) problems.push(`stage ${stage.name}: ARG ${name} is declared but never used`);
  }
  for (const name of dockerfile.globalArgs.keys()) if (!usedGlobals.has(name)) problems.push(`global ARG ${name} is never used`);
  return problems;
}

function declaresArg(dockerfile: Dockerfile, target: string, arg: string): boolean {
  if (dockerfile.globalArgs.has(arg)) return true;
  return [...stageClosure(dockerfile, target)].some((name) =>
    stageNamed(dockerfile, name)?.instructions.some((instruction) => instruction.keyword === 'ARG' && instruction.args.split('=', 2)[0].trim() === arg),
  );
}

/** The npm workspaces (package.json "workspaces" globs of the form dir/*) that have a package.json. */
function workspaceManifests(): string[] {
  const globs = (JSON.parse(read('package.json')) as { workspaces: string[] }).workspaces;
  return globs.flatMap((glob) => {
    const parent = glob.replace(/\/\*$/, '');
    return readdirSync(join(root, parent))
      .map((entry) => `${parent}/${entry}/package.json`)
      .filter((manifest) => existsSync(join(root, manifest)));
  });
}

// ---------------------------------------------------------------------------------------------------------------
// nginx

interface Directive {
  name: string;
  args: string[];
  block?: Directive[];
}

function parseNginx(text: string): Directive[] {
  const tokens: string[] = [];
  const pattern = /#[^\n]*|"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|([{};])|([^\s{};"'#]+)/g;
  for (const match of text.matchAll(pattern)) {
    if (match[0].startsWith('#')) continue;
    tokens.push(match[1] ?? match[2] ?? match[3] ?? match[4]);
  }
  let position = 0;
  const parseBlock = (): Directive[] => {
    const directives: Directive[] = [];
    while (position < tokens.length && tokens[position] !== '}') {
      const words: string[] = [];
      while (!['{', ';', '}'].includes(tokens[position])) words.push(tokens[position++]);
      const directive: Directive = { name: words[0], args: words.slice(1) };
      if (tokens[position++] === '{') {
        directive.block = parseBlock();
        position++; // the closing brace
      }
      directives.push(directive);
    }
    return directives;
  };
  return parseBlock();
}

const find = (directives: Directive[] | undefined, name: string) => (directives ?? []).filter((directive) => directive.name === name);

/** The location nginx picks for a URI: exact match, else `^~` prefix, else first matching regex, else longest prefix. */
function locate(server: Directive, uri: string): Directive | undefined {
  const locations = find(server.block, 'location').map((location) => {
    const [modifier, path] = location.args.length === 2 ? location.args : [undefined, location.args[0]];
    return { location, modifier, path };
  });
  const exact = locations.find((candidate) => candidate.modifier === '=' && candidate.path === uri);
  if (exact) return exact.location;
  const prefix = locations
    .filter((candidate) => (candidate.modifier === undefined || candidate.modifier === '^~') && uri.startsWith(candidate.path))
    .sort((a, b) => b.path.length - a.path.length)[0];
  if (prefix?.modifier === '^~') return prefix.location;
  const regex = locations.find((candidate) => (candidate.modifier === '~' || candidate.modifier === '~*') && new RegExp(candidate.path, candidate.modifier === '~*' ? 'i' : '').test(uri));
  return regex?.location ?? prefix?.location;
}

/** The value an nginx `map` gives for an input: exact entries first, then regexes in order, then default. */
function mapLookup(map: Directive, input: string): string | undefined {
  const entries = map.block ?? [];
  const exact = entries.find((entry) => entry.name === input);
  if (exact) return exact.args[0];
  const regex = entries.find((entry) => entry.name.startsWith('~') && new RegExp(entry.name.replace(/^~\*?/, '')).test(input));
  return regex?.args[0] ?? entries.find((entry) => entry.name === 'default')?.args[0];
}

// ---------------------------------------------------------------------------------------------------------------
// Kubernetes

interface Model {
  validate(): void;
}
// The kinds k8s/ uses; a new kind must be added here so it is validated rather than waved through.
const MODELS: Record<string, new (data: never) => Model> = {
  'apps/v1/Deployment': Deployment,
  'v1/Service': Service,
  'v1/ConfigMap': ConfigMap,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'batch/v1/Job': Job,
};

interface K8sObject extends Json {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: Json;
}

function yamlFilesUnder(directory: string): string[] {
  return readdirSync(join(root, directory)).flatMap((entry) => {
    const path = `${directory}/${entry}`;
    if (statSync(join(root, path)).isDirectory()) return yamlFilesUnder(path);
    return /\.ya?ml$/.test(entry) ? [path] : [];
  });
}

function parseManifests(text: string, source: string): K8sObject[] {
  return parseAllDocuments(text).flatMap((document, index) => {
    if ('errors' in document && document.errors.length) throw new Error(`${source} document ${index + 1}: ${document.errors[0].message}`);
    const value = document.toJS() as K8sObject | null;
    return value ? [value] : [];
  });
}

function validationProblems(objects: Array<{ object: K8sObject; source: string }>): string[] {
  return objects.flatMap(({ object, source }) => {
    const where = `${source}: ${object.kind}/${object.metadata?.name}`;
    const Model = MODELS[`${object.apiVersion}/${object.kind}`];
    if (!Model) return [`${where}: no kubernetes-models class for ${object.apiVersion} ${object.kind}; add it to MODELS`];
    try {
      new Model(object as never).validate();
      return [];
    } catch (error) {
      return [`${where}: ${(error as Error).message}`];
    }
  });
}

const podSpec = (workload: K8sObject) => asRecord(asRecord(asRecord(workload.spec.template).spec));
const containersOf = (workload: K8sObject) => asArray(podSpec(workload).containers).map(asRecord);
const selects = (selector: unknown, labels: Record<string, string> | undefined) =>
  Object.entries(asRecord(selector)).every(([key, value]) => labels?.[key] === value);

/** Invariants kubernetes-models cannot see (it accepts unknown fields, so a misspelt probe passes it). */
function workloadProblems(objects: K8sObject[]): string[] {
  const problems: string[] = [];
  const deployments = objects.filter((object) => object.kind === 'Deployment');
  for (const deployment of deployments) {
    const name = deployment.metadata.name;
    const labels = asRecord(asRecord(deployment.spec.template).metadata).labels as Record<string, string> | undefined;
    const pod = podSpec(deployment);
    if (asRecord(pod.securityContext).runAsNonRoot !== true) problems.push(`${name}: pod securityContext.runAsNonRoot is not true`);
    if ('replicas' in deployment.spec) problems.push(`${name}: sets replicas, which its HorizontalPodAutoscaler owns`);
    for (const container of containersOf(deployment)) {
      const where = `${name}/${String(container.name)}`;
      const probePath = (probe: string) => asRecord(asRecord(container[probe]).httpGet).path;
      if (probePath('livenessProbe') !== '/health/live') problems.push(`${where}: livenessProbe is not GET /health/live`);
      if (probePath('readinessProbe') !== '/health/ready') problems.push(`${where}: readinessProbe is not GET /health/ready`);
      const resources = asRecord(container.resources);
      for (const kind of ['requests', 'limits']) {
        for (const resource of ['cpu', 'memory']) if (!asRecord(resources[kind])[resource]) problems.push(`${where}: no resources.${kind}.${resource}`);
      }
      const security = asRecord(container.securityContext);
      if (security.readOnlyRootFilesystem !== true) problems.push(`${where}: readOnlyRootFilesystem is not true`);
      if (security.allowPrivilegeEscalation !== false) problems.push(`${where}: allowPrivilegeEscalation is not false`);
      if (!asArray(asRecord(security.capabilities).drop).includes('ALL')) problems.push(`${where}: capabilities do not drop ALL`);
      for (const variable of asArray(container.env).map(asRecord)) {
        if (/KEY|URL$/.test(String(variable.name)) && variable.value !== undefined && variable.name !== 'PUBLIC_URL') {
          problems.push(`${where}: ${String(variable.name)} has a literal value; take it from the Secret`);
        }
      }
    }
    const covered = (kind: string) =>
      objects.some((object) => object.kind === kind && selects(asRecord(object.spec.selector).matchLabels ?? object.spec.selector, labels));
    if (!covered('Service')) problems.push(`${name}: no Service selects its pods`);
    if (!covered('PodDisruptionBudget')) problems.push(`${name}: no PodDisruptionBudget selects its pods`);
    const hpa = objects.find((object) => object.kind === 'HorizontalPodAutoscaler' && asRecord(object.spec.scaleTargetRef).name === name);
    if (!hpa) problems.push(`${name}: no HorizontalPodAutoscaler targets it`);
    else if (Number(hpa.spec.minReplicas ?? 1) > Number(hpa.spec.maxReplicas)) problems.push(`${name}: HPA minReplicas > maxReplicas`);
  }
  return problems;
}

const kubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).status === 0;

// ---------------------------------------------------------------------------------------------------------------

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

  it('has a service for every app, each Nest app built from its own APP and listening on its own port', () => {
    for (const app of APPS) expect(Object.keys(services)).toContain(app);
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
      for (const arg of buildArgs(build)) if (!declaresArg(dockerfile, target, arg)) problems.push(`${name}: build arg ${arg} is not an ARG of ${dockerfilePath} for target ${target}`);
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
      const migration = Object.entries(services).find(([, service]) => {
        const command = asArray(service.command).join(' ');
        return command.includes(`dist/apps/${app}/main.js`) && command.endsWith(' migrate');
      });
      if (!migration) problems.push(`${app}: no service runs "node dist/apps/${app}/main.js migrate"`);
      else if (asRecord(asRecord(services[app].depends_on)[migration[0]]).condition !== 'service_completed_successfully') {
        problems.push(`${app}: does not wait for ${migration[0]} to complete successfully`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('configures the Nest apps for production and checks their readiness', () => {
    for (const app of Object.keys(NEST_APPS)) {
      const environment = asRecord(services[app].environment);
      expect({ app, NODE_ENV: environment.NODE_ENV, NATS_URL: environment.NATS_URL }).toEqual({ app, NODE_ENV: 'production', NATS_URL: 'nats://nats:4222' });
      expect(asArray(asRecord(services[app].healthcheck).test).join(' ')).toContain('/health/ready');
    }
    expect(asRecord(services.notifications.environment).NOTIFICATIONS_ROLE).toBe('all');
    // Keys come from the host environment, never from this file.
    expect(asRecord(services.identity.environment).JWT_PRIVATE_KEY).toMatch(/^\$\{JWT_PRIVATE_KEY:\?/);
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

describe('Dockerfiles', () => {
  const paths = ['deploy/docker/Dockerfile', 'deploy/docker/web.Dockerfile'];

  it.each(paths)('%s declares every ARG it uses and uses every ARG it declares', (path) => {
    expect(dockerfileScopeProblems(parseDockerfile(read(path)))).toEqual([]);
  });

  it('catches an ARG that does not reach its stage and a CMD that reads a build ARG', () => {
    const dockerfile = parseDockerfile(['ARG APP', 'FROM node AS build', 'RUN echo $APP', 'FROM build AS runtime', 'ARG PORT', 'CMD node $PORT'].join('\n'));
    expect(dockerfileScopeProblems(dockerfile)).toEqual([
      'line 3 (RUN, stage build): ${APP} is neither an ARG of this stage nor an ENV',
      'line 6 (CMD, stage runtime): ${PORT} is not set by ENV, so it is empty at run time',
      'stage runtime: ARG PORT is declared but never used',
      'global ARG APP is never used',
    ]);
  });

  it.each(paths)('%s copies every workspace package.json before npm ci (npm ci fails without them)', (path) => {
    const text = read(path);
    expect(text).toContain('npm ci');
    const missing = workspaceManifests().filter((manifest) => !new RegExp(`^COPY\\s+${manifest.replace(/[.]/g, '\\.')}\\s`, 'm').test(text));
    expect(missing).toEqual([]);
  });

  it.each(paths)('%s builds on the Node version of .nvmrc', (path) => {
    const [major, minor] = read('.nvmrc').trim().replace(/^v/, '').split('.');
    const dockerfile = parseDockerfile(read(path));
    const images = dockerfile.stages.map((stage) => stage.from.replace(/\$\{?(\w+)\}?/g, (_, name: string) => dockerfile.globalArgs.get(name) ?? ''));
    const nodeImages = images.filter((image) => image.startsWith('node:'));
    expect(nodeImages.length).toBeGreaterThan(0);
    for (const image of nodeImages) expect(image).toMatch(new RegExp(`^node:${major}\\.${minor}-bookworm-slim$`));
  });

  it.each(paths)('%s copies only files that exist and that .dockerignore lets into the build context', (path) => {
    const ignored = new Set(read('.dockerignore').split('\n').map((line) => line.trim()).filter((line) => line && !line.startsWith('#')));
    const sources = parseDockerfile(read(path))
      .stages.flatMap((stage) => stage.instructions)
      .filter((instruction) => instruction.keyword === 'COPY' && !instruction.args.includes('--from'))
      .flatMap((instruction) => instruction.args.split(/\s+/).filter((word) => !word.startsWith('--')).slice(0, -1))
      .filter((source) => source !== '.');
    for (const source of sources) {
      expect({ source, exists: existsSync(join(root, source)) }).toEqual({ source, exists: true });
      expect({ source, ignored: ignored.has(source.split('/')[0]) || ignored.has(source) }).toEqual({ source, ignored: false });
    }
  });

  it('runs the Nest apps as a non-root user in production mode, with a healthcheck, and the gateway with the web build', () => {
    const dockerfile = parseDockerfile(read('deploy/docker/Dockerfile'));
    const runtime = stageNamed(dockerfile, 'runtime');
    const gateway = stageNamed(dockerfile, 'gateway');
    const has = (stage: Stage | undefined, keyword: string, pattern: RegExp) =>
      (stage?.instructions ?? []).some((instruction) => instruction.keyword === keyword && pattern.test(instruction.args));
    expect(has(runtime, 'USER', /^node$/)).toBe(true);
    expect(has(runtime, 'ENV', /NODE_ENV=production/)).toBe(true);
    expect(has(runtime, 'HEALTHCHECK', /\/health\/live/)).toBe(true);
    expect(has(runtime, 'CMD', /node dist\/apps\/\$\{APP\}\/main\.js/)).toBe(true);
    expect(gateway?.from).toBe('runtime');
    expect(has(gateway, 'COPY', /--from=web-build \/app\/dist\/apps\/web /)).toBe(true);
    expect(has(gateway, 'ENV', /^WEB_DIST=/)).toBe(true);
    expect(has(stageNamed(dockerfile, 'build'), 'RUN', /npx nx run "\$\{APP\}:build"/)).toBe(true);
    expect(has(stageNamed(dockerfile, 'prod-deps'), 'RUN', /npm ci --omit=dev/)).toBe(true);
  });
});

describe('deploy/nginx/web.conf', () => {
  const config = parseNginx(read('deploy/nginx/web.conf'));
  const [server] = find(config, 'server');
  const proxiesToGateway = (uri: string) => find(locate(server, uri)?.block, 'proxy_pass').some((directive) => directive.args[0] === 'http://gateway:8080');
  const tryFiles = (uri: string) => find(locate(server, uri)?.block, 'try_files')[0]?.args.join(' ');

  it('listens on the port the web image and its Kubernetes Service expect', () => {
    expect(find(server.block, 'listen')[0].args).toEqual(['8080']);
  });

  it('serves index.html for any page of the app (SPA fallback), but 404s a missing asset', () => {
    for (const uri of ['/', '/found/ABCD-EFGH-JKLM-NPQR', '/items', '/languages']) expect({ uri, tryFiles: tryFiles(uri) }).toEqual({ uri, tryFiles: '$uri /index.html' });
    expect(tryFiles('/assets/index-3f2a.js')).toBe('$uri =404');
  });

  it('proxies /api/, /qr/ and /lang to the gateway, and nothing else', () => {
    for (const uri of ['/api/v1/items/X', '/qr/ABCD-EFGH-JKLM-NPQR', '/lang', '/lang/nl']) expect({ uri, proxied: proxiesToGateway(uri) }).toEqual({ uri, proxied: true });
    for (const uri of ['/', '/languages', '/apidocs', '/assets/a.js', '/sw.js']) expect({ uri, proxied: proxiesToGateway(uri) }).toEqual({ uri, proxied: false });
  });

  it('never caches index.html or sw.js, and caches hashed assets for good', () => {
    const cacheHeader = find(server.block, 'add_header').find((directive) => directive.args[0] === 'Cache-Control');
    expect(cacheHeader?.args[1]).toMatch(/^\$\w+$/);
    const map = find(config, 'map').find((candidate) => candidate.args[1] === cacheHeader?.args[1]);
    expect(map?.args[0]).toBe('$uri');
    expect(mapLookup(map as Directive, '/index.html')).toBe('no-cache');
    expect(mapLookup(map as Directive, '/sw.js')).toBe('no-cache');
    expect(mapLookup(map as Directive, '/assets/index-3f2a.js')).toMatch(/max-age=31536000.*immutable/);
  });

  it('sends the security headers on every response', () => {
    const headers = Object.fromEntries(find(server.block, 'add_header').map((directive) => [directive.args[0], directive.args.slice(1)]));
    expect(headers['X-Content-Type-Options']).toEqual(['nosniff', 'always']);
    expect(headers['Referrer-Policy']).toEqual(['no-referrer', 'always']);
    expect(headers['Content-Security-Policy']).toEqual(["frame-ancestors 'none'", 'always']);
    // One add_header inside a location replaces every server-level one for that location.
    const nested = (directives: Directive[] = []): string[] =>
      directives.flatMap((directive) => [...(directive.name === 'location' ? find(directive.block, 'add_header').map(() => directive.args.join(' ')) : []), ...nested(directive.block)]);
    expect(nested(server.block)).toEqual([]);
  });
});

describe('k8s/', () => {
  const files = yamlFilesUnder('k8s');
  const kustomizations = files.filter((file) => /(^|\/)kustomization\.ya?ml$/.test(file));
  const manifests = files.filter((file) => !kustomizations.includes(file)).flatMap((source) => parseManifests(read(source), source).map((object) => ({ object, source })));
  const base = manifests.filter(({ source }) => source.startsWith('k8s/base/')).map(({ object }) => object);

  it('has a base and the dev and prod overlays', () => {
    expect(kustomizations.sort()).toEqual(['k8s/base/kustomization.yaml', 'k8s/overlays/dev/kustomization.yaml', 'k8s/overlays/prod/kustomization.yaml']);
  });

  it('validates every object against the Kubernetes API schema (kubernetes-models)', () => {
    expect(manifests.length).toBeGreaterThan(0);
    expect(validationProblems(manifests)).toEqual([]);
  });

  it('catches an invalid object', () => {
    const [broken] = parseManifests('apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: x }\nspec:\n  template: { spec: { containers: [{ name: x }] } }\n', 'inline');
    expect(validationProblems([{ object: broken, source: 'inline' }])[0]).toContain('selector');
  });

  it('names only files and directories that exist in each kustomization', () => {
    const problems: string[] = [];
    for (const file of kustomizations) {
      const kustomization = parseYaml(read(file), file);
      const directory = dirname(file);
      const referenced = [
        ...asArray(kustomization.resources),
        ...asArray(kustomization.components),
        ...asArray(kustomization.patches).map((patch) => asRecord(patch).path),
        ...[...asArray(kustomization.configMapGenerator), ...asArray(kustomization.secretGenerator)].flatMap((generator) => [...asArray(asRecord(generator).files), ...asArray(asRecord(generator).envs)]),
      ].filter((entry): entry is string => typeof entry === 'string');
      for (const entry of referenced) {
        const path = join(directory, entry.replace(/^[^=]+=/, ''));
        const ok = existsSync(join(root, path)) && (!statSync(join(root, path)).isDirectory() || existsSync(join(root, path, 'kustomization.yaml')));
        if (!ok) problems.push(`${file}: ${entry} (${path}) does not exist`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('runs every app with probes, resources, a locked-down security context, a Service, a PDB and an HPA', () => {
    const names = base.filter((object) => object.kind === 'Deployment').map((object) => object.metadata.name);
    expect(names.sort()).toEqual(['gateway', 'identity', 'items', 'messaging', 'notifications-consumer', 'notifications-worker', 'web']);
    expect(workloadProblems(base)).toEqual([]);
  });

  it('splits notifications into consumer and worker roles and lets Prometheus scrape every Nest app', () => {
    const deployments = base.filter((object) => object.kind === 'Deployment');
    const role = (name: string) =>
      asArray(containersOf(deployments.find((object) => object.metadata.name === name) as K8sObject)[0].env).map(asRecord).find((variable) => variable.name === 'NOTIFICATIONS_ROLE')?.value;
    expect([role('notifications-consumer'), role('notifications-worker')]).toEqual(['consumer', 'worker']);
    for (const deployment of deployments.filter((object) => object.metadata.name !== 'web')) {
      const annotations = asRecord(asRecord(deployment.spec.template).metadata).annotations as Record<string, string>;
      const port = asRecord(asArray(containersOf(deployment)[0].ports)[0]).containerPort;
      expect({ name: deployment.metadata.name, ...annotations }).toEqual({
        name: deployment.metadata.name,
        'prometheus.io/scrape': 'true',
        'prometheus.io/port': String(port),
        'prometheus.io/path': '/metrics',
      });
    }
  });

  it("has the gateway Service that nginx proxies to, and nginx's port on the web pods", () => {
    const servicePorts = (name: string) =>
      asArray(base.find((object) => object.kind === 'Service' && object.metadata.name === name)?.spec.ports).map((port) => asRecord(port).port);
    expect(servicePorts('gateway')).toContain(8080);
    expect(containersOf(base.find((object) => object.kind === 'Deployment' && object.metadata.name === 'web') as K8sObject)[0].ports).toEqual([{ name: 'http', containerPort: 8080 }]);
  });

  it('migrates identity, items, messaging and notifications in a Job', () => {
    const job = base.find((object) => object.kind === 'Job') as K8sObject;
    const commands = containersOf(job).map((container) => asArray(container.command).join(' '));
    expect(commands.sort()).toEqual(MIGRATING_APPS.map((app) => `node dist/apps/${app}/main.js migrate`));
  });

  it('keeps secret values out of the repository', () => {
    expect(manifests.filter(({ object }) => object.kind === 'Secret')).toEqual([]);
    const generated = kustomizations.flatMap((file) => asArray(parseYaml(read(file), file).secretGenerator));
    expect(generated).toEqual([]);
  });

  const withKubectl = kubectl ? it : it.skip;
  withKubectl.each(['dev', 'prod'])('renders the %s overlay with kubectl kustomize into valid objects', (overlay) => {
    const rendered = spawnSync('kubectl', ['kustomize', join(root, 'k8s/overlays', overlay)], { encoding: 'utf8' });
    expect(rendered.stderr).toBe('');
    const objects = parseManifests(rendered.stdout, overlay);
    expect(validationProblems(objects.map((object) => ({ object, source: overlay })))).toEqual([]);
    expect(workloadProblems(objects)).toEqual([]);
    const config = objects.find((object) => object.kind === 'ConfigMap' && object.metadata.name.startsWith('homing-config-'));
    const minReplicas = objects.filter((object) => object.kind === 'HorizontalPodAutoscaler').map((object) => Number(object.spec.minReplicas));
    if (overlay === 'prod') {
      expect(config?.data).toMatchObject({ LOG_LEVEL: 'info', OTEL_TRACES_SAMPLER_ARG: '0.1', NODE_ENV: 'production' });
      expect(Math.min(...minReplicas)).toBeGreaterThanOrEqual(2);
    } else {
      expect(Math.min(...minReplicas)).toBe(1);
    }
  });
});
