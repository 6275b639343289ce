// Shared by the offline checks of the deployment files. There is no Docker engine or cluster on the machines that
// run the tests, so `docker compose config`, `docker build` and `kubectl apply` cannot catch these mistakes here;
// maintained parsers and validators do (the compose-spec schema, dockerfile-ast, nginx-conf, kubernetes-models).
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DockerfileParser, type Instruction } from 'dockerfile-ast';
import { parseDocument } from 'yaml';

export const root = resolve(__dirname, '../..');
export const read = (path: string) => readFileSync(join(root, path), 'utf8');

/** ARCHITECTURE §1 and §10: every Nest app and the port it serves health and metrics on. */
export const NEST_APPS: Record<string, number> = { gateway: 8080, identity: 3001, items: 3002, messaging: 3003, notifications: 3004, 'mail-relay': 3005 };
export const MIGRATING_APPS = ['identity', 'items', 'messaging', 'notifications'];

export type Json = Record<string, unknown>;
export const asRecord = (value: unknown): Json => (value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {});
export const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** YAML as compose reads it: merge keys (`<<: *anchor`) resolved, duplicate keys refused. */
export function parseYaml(text: string, source: string): Json {
  const document = parseDocument(text, { merge: true });
  if (document.errors.length) throw new Error(`${source}: ${document.errors.map((error) => error.message).join('; ')}`);
  return asRecord(document.toJS({ maxAliasCount: -1 }));
}

export function yamlFilesUnder(directory: string): string[] {
  return readdirSync(join(root, directory)).flatMap((entry) => {
    const path = `${directory}/${entry}`;
    if (statSync(join(root, path)).isDirectory()) return yamlFilesUnder(path);
    return /\.ya?ml$/.test(entry) ? [path] : [];
  });
}

/** A build stage of a Dockerfile: its name, what it builds FROM, and its instructions after the FROM. */
export interface Stage {
  name: string;
  from: string;
  instructions: Instruction[];
}

export interface ParsedDockerfile {
  /** ARGs before the first FROM, with their defaults. */
  globalArgs: Map<string, string | undefined>;
  stages: Stage[];
}

export function parseDockerfile(text: string): ParsedDockerfile {
  const dockerfile = DockerfileParser.parse(text);
  const globalArgs = new Map<string, string | undefined>();
  const stages: Stage[] = [];
  for (const instruction of dockerfile.getInstructions()) {
    const keyword = instruction.getKeyword();
    if (keyword === 'FROM') {
      const from = instruction as unknown as { getImage(): string; getBuildStage(): string | null };
      stages.push({ name: from.getBuildStage() ?? String(stages.length), from: from.getImage(), instructions: [] });
    } else if (stages.length === 0 && keyword === 'ARG') {
      const [name, value] = instruction.getArgumentsContent()?.split('=', 2) ?? [];
      globalArgs.set(name.trim(), value);
    } else if (stages.length > 0) {
      stages[stages.length - 1].instructions.push(instruction);
    }
  }
  return { globalArgs, stages };
}

export const stageNamed = (dockerfile: ParsedDockerfile, name: string) => dockerfile.stages.find((stage) => stage.name === name);

/** The stage and the stages it builds FROM, nearest first. */
export function lineageOf(dockerfile: ParsedDockerfile, name: string): Stage[] {
  const stage = stageNamed(dockerfile, name);
  return stage ? [stage, ...lineageOf(dockerfile, stage.from)] : [];
}

export const argumentsOf = (instruction: Instruction) => instruction.getArgumentsContent() ?? '';

/** The stage a COPY takes its files from (`--from=`), if any; dockerfile-ast keeps flags out of the arguments. */
export function copiedFrom(instruction: Instruction): string | undefined {
  const copy = instruction as Instruction & { getFromFlag?: () => { getValue(): string | null } | null };
  return copy.getFromFlag?.()?.getValue() ?? undefined;
}
