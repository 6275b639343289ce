import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { argumentsOf, copiedFrom, lineageOf, parseDockerfile, read, root, stageNamed, type ParsedDockerfile, type Stage } from './support';

const DOCKERFILE = 'deploy/docker/Dockerfile';
const variablesIn = (text: string) => [...text.matchAll(/\$\{?([A-Za-z_][A-Za-z0-9_]*)/g)].map((match) => match[1]);
const declared = (stage: Stage, keyword: 'ARG' | 'ENV') =>
  stage.instructions
    .filter((instruction) => instruction.getKeyword() === keyword)
    .flatMap((instruction) => [...argumentsOf(instruction).matchAll(/(?:^|\s)([A-Za-z_][A-Za-z0-9_]*)(?==|\s|$)/g)].map((match) => match[1]))
    .filter((name, index, all) => keyword === 'ARG' || all.indexOf(name) === index);

/**
 * Docker's scoping rules, which `docker build` only reports by building an empty value: a global ARG reaches FROM
 * lines only; inside a stage a variable must be an ARG of that stage or an ENV of it or of a stage it builds on;
 * and CMD/ENTRYPOINT/HEALTHCHECK run later, where build ARGs are gone.
 */
function scopeProblems(dockerfile: ParsedDockerfile): string[] {
  const problems: string[] = [];
  for (const stage of dockerfile.stages) {
    const envs = new Set(lineageOf(dockerfile, stage.name).flatMap((ancestor) => declared(ancestor, 'ENV')));
    const args = new Set(declared(stage, 'ARG'));
    for (const instruction of stage.instructions) {
      const keyword = instruction.getKeyword();
      if (keyword === 'ARG') continue;
      const runtime = ['CMD', 'ENTRYPOINT', 'HEALTHCHECK'].includes(keyword);
      for (const name of variablesIn(argumentsOf(instruction))) {
        const line = instruction.getRange().start.line + 1;
        if (runtime && !envs.has(name) && args.has(name)) problems.push(`line ${line} (${keyword}, stage ${stage.name}): \${${name}} is a build ARG, empty at run time`);
        else if (!runtime && !envs.has(name) && !args.has(name)) problems.push(`line ${line} (${keyword}, stage ${stage.name}): \${${name}} is neither an ARG of this stage nor an ENV`);
      }
    }
  }
  return problems;
}

const has = (stage: Stage | undefined, keyword: string, pattern: RegExp) =>
  (stage?.instructions ?? []).some((instruction) => instruction.getKeyword() === keyword && pattern.test(argumentsOf(instruction)));
const copies = (stage: Stage | undefined, from: string, pattern: RegExp) =>
  (stage?.instructions ?? []).some((instruction) => copiedFrom(instruction) === from && pattern.test(argumentsOf(instruction)));

describe('deploy/docker/Dockerfile', () => {
  const dockerfile = parseDockerfile(read(DOCKERFILE));

  it('is the one recipe: every image is a target of it', () => {
    expect(readdirSync(join(root, 'deploy/docker')).filter((file) => /Dockerfile/.test(file))).toEqual(['Dockerfile']);
    for (const target of ['service', 'gateway', 'web']) expect({ target, exists: Boolean(stageNamed(dockerfile, target)) }).toEqual({ target, exists: true });
  });

  it('uses only the variables in scope where it uses them', () => {
    expect(scopeProblems(dockerfile)).toEqual([]);
  });

  it('catches a build ARG used outside its stage and a CMD that reads a build ARG', () => {
    const broken = parseDockerfile(['ARG APP', 'FROM node AS build', 'RUN echo $APP', 'FROM build AS runtime', 'ARG PORT', 'CMD node $PORT'].join('\n'));
    expect(scopeProblems(broken)).toEqual([
      'line 3 (RUN, stage build): ${APP} is neither an ARG of this stage nor an ENV',
      'line 6 (CMD, stage runtime): ${PORT} is a build ARG, empty at run time',
    ]);
  });

  it('copies every workspace package.json before npm ci (npm ci fails without them)', () => {
    const workspaces = ['apps', 'libs'].flatMap((folder) =>
      readdirSync(join(root, folder))
        .map((name) => `${folder}/${name}/package.json`)
        .filter((manifest) => existsSync(join(root, manifest))),
    );
    const copied = (stageNamed(dockerfile, 'manifests')?.instructions ?? [])
      .filter((instruction) => instruction.getKeyword() === 'COPY')
      .map((instruction) => argumentsOf(instruction).split(/\s+/)[0]);
    expect(workspaces.filter((manifest) => !copied.includes(manifest))).toEqual([]);
  });

  it('copies patches/ before npm ci (its postinstall applies them, and without the folder applies none, silently)', () => {
    const copied = (stageNamed(dockerfile, 'manifests')?.instructions ?? [])
      .filter((instruction) => instruction.getKeyword() === 'COPY')
      .map((instruction) => argumentsOf(instruction).split(/\s+/)[0]);
    expect(copied).toContain('patches/');
    expect(stageNamed(dockerfile, 'deps')?.from).toBe('manifests');
    expect(has(stageNamed(dockerfile, 'deps'), 'RUN', /npm ci(?!.*--ignore-scripts)/)).toBe(true);
  });

  it('builds on the Node version of .nvmrc', () => {
    const [major, minor] = read('.nvmrc').trim().replace(/^v/, '').split('.');
    expect(dockerfile.globalArgs.get('NODE_IMAGE')).toBe(`node:${major}.${minor}-bookworm-slim`);
  });

  it('copies only files that exist and that .dockerignore lets into the build context', () => {
    const ignored = new Set(read('.dockerignore').split('\n').map((line) => line.trim()).filter((line) => line && !line.startsWith('#')));
    const sources = dockerfile.stages
      .flatMap((stage) => stage.instructions)
      .filter((instruction) => instruction.getKeyword() === 'COPY' && !copiedFrom(instruction))
      .flatMap((instruction) => instruction.getArguments().map((argument) => argument.getValue()).filter((word) => !word.startsWith('--')).slice(0, -1))
      .filter((source) => source !== '.');
    expect(sources.length).toBeGreaterThan(0);
    for (const source of sources) {
      expect({ source, exists: existsSync(join(root, source)) }).toEqual({ source, exists: true });
      expect({ source, ignored: ignored.has(source.split('/')[0]) || ignored.has(source) }).toEqual({ source, ignored: false });
    }
  });

  it('runs the Nest apps under an init process, as a non-root user, in production mode, with pruned dependencies and a healthcheck', () => {
    const runtime = stageNamed(dockerfile, 'node-runtime');
    const service = stageNamed(dockerfile, 'service');
    expect(has(runtime, 'ENTRYPOINT', /tini/)).toBe(true);
    expect(service?.from).toBe('node-runtime');
    expect(has(service, 'USER', /^1000$/)).toBe(true);
    expect(has(service, 'ENV', /NODE_ENV=production/)).toBe(true);
    expect(has(service, 'HEALTHCHECK', /\/health\/live/)).toBe(true);
    expect(has(service, 'CMD', /exec node dist\/apps\/\$\{APP\}\/main\.js/)).toBe(true);
    expect(copies(service, 'prod-deps', /^\/app\/node_modules /)).toBe(true);
    expect(stageNamed(dockerfile, 'prod-deps')?.from).toBe('deps');
    expect(has(stageNamed(dockerfile, 'prod-deps'), 'RUN', /npm prune --omit=dev/)).toBe(true);
    expect(has(stageNamed(dockerfile, 'build'), 'RUN', /npx nx run "\$\{APP\}:build"/)).toBe(true);
  });

  it('carries no web-only package into the service images (they are devDependencies)', () => {
    const { dependencies } = JSON.parse(read('package.json')) as { dependencies: Record<string, string> };
    expect(Object.keys(dependencies).filter((name) => /^(react|react-dom|react-router|i18next|react-i18next|@tanstack\/|react-hook-form|vite|maildev)/.test(name))).toEqual([]);
  });

  it('gives the gateway the web build, and serves the web app from unprivileged nginx with its config', () => {
    const gateway = stageNamed(dockerfile, 'gateway');
    const web = stageNamed(dockerfile, 'web');
    expect(gateway?.from).toBe('service');
    expect(copies(gateway, 'web-build', /^\/app\/dist\/apps\/web /)).toBe(true);
    expect(has(gateway, 'ENV', /WEB_DIST=/)).toBe(true);
    // The tag sheet's PDF label font, installed as root, and the gateway runs as the service user again.
    expect(has(gateway, 'RUN', /apt-get install .*fonts-dejavu-core/)).toBe(true);
    expect((gateway?.instructions ?? []).filter((instruction) => instruction.getKeyword() === 'USER').map(argumentsOf).at(-1)).toBe('1000');
    expect(dockerfile.globalArgs.get('NGINX_IMAGE')).toMatch(/^nginxinc\/nginx-unprivileged:/);
    expect(has(web, 'COPY', /^deploy\/nginx\/web\.conf \/etc\/nginx\/conf\.d\/default\.conf$/)).toBe(true);
    expect(has(web, 'USER', /^101$/)).toBe(true);
    expect(has(web, 'HEALTHCHECK', /\/health\/live/)).toBe(true);
  });

  it('runs nginx as PID 1 of the web image, as the reason in the Dockerfile says, or an init in front of it', () => {
    // nginx's master reaps its workers and stops gracefully on the image's STOPSIGNAL (SIGQUIT): it is its own init.
    // Either the web stage keeps the base image's entrypoint, command and stop signal untouched and says why, or it
    // puts tini or dumb-init in front as the Node.js images do.
    const web = stageNamed(dockerfile, 'web');
    const overrides = (web?.instructions ?? []).filter((instruction) => ['ENTRYPOINT', 'CMD', 'STOPSIGNAL'].includes(instruction.getKeyword()));
    const withInit = has(web, 'ENTRYPOINT', /tini|dumb-init/);
    if (!withInit) {
      expect(overrides.map(argumentsOf)).toEqual([]);
      // The comment block right above the web stage's FROM.
      const webComment = /((?:^#.*\n)+)FROM \S+ AS web\n/m.exec(read(DOCKERFILE))?.[1] ?? '';
      expect(webComment).toMatch(/nginx is PID 1/);
      expect(webComment).toMatch(/reaps/);
      expect(webComment).toMatch(/SIGQUIT/);
    }
  });
});
