import type { FastifyServerOptions } from 'fastify';

type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;
type Factory = (...args: unknown[]) => unknown;

let validator: Factory | undefined;
let serializer: Factory | undefined;

/**
 * Fastify's own compilers for route schemas (Ajv and fast-json-stringify), loaded with the first route that declares
 * a schema rather than with Fastify: no route of ours does (bodies are validated with the contracts' zod schemas),
 * and the two are about a hundred modules on every service's start (B8). A route that does declare one is validated
 * and serialized exactly as by Fastify's defaults.
 */
export const routeSchemaCompilers = {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  buildValidator: (...args: unknown[]) => (validator ??= (require('@fastify/ajv-compiler') as () => Factory)())(...args),
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  buildSerializer: (...args: unknown[]) => (serializer ??= (require('@fastify/fast-json-stringify-compiler') as () => Factory)())(...args),
} as CompilersFactory;
