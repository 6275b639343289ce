import { ModulesContainer } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
// Types only: the package loads with the first request for the document (loadSwagger), never at start-up.
import type { OpenAPIObject, SchemaObject } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { FINDER_TOKEN_API_HEADER } from '../conversations/finder-token';
import { API_ROUTE_OPTIONS, API_TAGS, type ApiRouteOptions, type ErrorStatus } from './api-route.decorator';
import { IDEMPOTENCY_KEY_API_HEADER } from './idempotency-key';

type Swagger = typeof import('@nestjs/swagger');

let swaggerLoaded: Promise<Swagger> | undefined;
const loadSwagger = () => (swaggerLoaded ??= import('@nestjs/swagger'));

/** The contracts' zod schemas are the single source of truth; OpenAPI gets their JSON Schema. */
export function jsonSchemaOf(schema: z.ZodType): SchemaObject {
  const { $schema: _ignored, ...json } = z.toJSONSchema(schema, { target: 'openapi-3.0', io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return json as SchemaObject;
}

const errorBody: SchemaObject = {
  type: 'object',
  required: ['response_code', 'message'],
  properties: {
    response_code: { type: 'string', example: 'VALIDATION_ERROR' },
    message: { type: 'string' },
    validation: { type: 'object', additionalProperties: { type: 'string', example: 'max=100' } },
  },
};

// Always JSON, also on routes whose success is an image or a stream (their `produces` is not the errors' type).
const describe = (status: number, description: string) => ({ status, description, content: { 'application/json': { schema: errorBody } } });

/** Said of every owner-only route: a stranger learns nothing, not even that the item exists. */
export const NOT_YOURS = 'Another person’s item is the same 404 ITEM_NOT_FOUND as a missing one.';

export const errorResponses: Record<ErrorStatus, ReturnType<typeof describe>> = {
  400: describe(400, 'Malformed request: not JSON, not an object, or unknown fields'),
  401: describe(401, 'Not authenticated'),
  403: describe(403, 'Forbidden: the caller may not do this'),
  404: describe(404, 'Not found'),
  409: describe(409, 'Conflict with the current state (e.g. FINDER_LEFT: the finder deleted the conversation)'),
  422: describe(422, 'Validation error, with a field → rule map'),
  429: describe(429, 'Rate limited; retry after Retry-After seconds'),
};

const IDEMPOTENCY_KEY_REUSED = 'Validation error; or IDEMPOTENCY_KEY_REUSED: the Idempotency-Key was used for another request';

/** @nestjs/swagger's decorators for one `@ApiRoute`: summary, security, body, query, headers and every answer. */
export function openApiDecoratorsOf(options: ApiRouteOptions, swagger: Swagger): MethodDecorator[] {
  const caller = options.caller ?? 'user';
  const status = options.status ?? 200;
  // A public route says so with an empty requirement, rather than by saying nothing; one a token changes offers both.
  const security = caller === 'anyone' ? { security: [] } : {};
  const decorators: MethodDecorator[] = [swagger.ApiOperation({ summary: options.summary, description: options.description, ...security })];
  if (caller !== 'anyone') decorators.push(swagger.ApiBearerAuth());
  if (caller === 'anyone-or-user') decorators.push(swagger.ApiSecurity({}));
  if (options.consumes) decorators.push(swagger.ApiConsumes(options.consumes));
  if (options.produces) decorators.push(swagger.ApiProduces(...options.produces));
  if (options.body) decorators.push(swagger.ApiBody({ schema: jsonSchemaOf(options.body) }));
  for (const query of options.query ?? []) decorators.push(swagger.ApiQuery(query));
  if (options.finderToken) decorators.push(swagger.ApiHeader({ ...FINDER_TOKEN_API_HEADER, required: options.finderToken === 'required' }));
  if (options.idempotent) decorators.push(swagger.ApiHeader(IDEMPOTENCY_KEY_API_HEADER));
  for (const header of options.headers ?? []) decorators.push(swagger.ApiHeader(header));
  decorators.push(swagger.ApiResponse({ status, ...successAnswer(options.answer) }));
  const errors = new Map<ErrorStatus, string | undefined>(caller === 'user' || caller === 'admin' ? [[401, undefined]] : []);
  if (caller === 'admin') errors.set(403, 'Not an admin');
  for (const error of options.errors ?? []) {
    const [code, description] = Array.isArray(error) ? error : [error, undefined];
    errors.set(code, description);
  }
  if (options.idempotent) errors.set(422, IDEMPOTENCY_KEY_REUSED);
  // Every route under the general limit can answer 429, whatever else it documents.
  if (options.rateLimit !== 'none' && !errors.has(429)) errors.set(429, undefined);
  for (const [code, description] of errors) decorators.push(swagger.ApiResponse({ ...errorResponses[code], ...(description ? { description } : {}) }));
  return decorators;
}

function successAnswer(answer: ApiRouteOptions['answer']): { description?: string; schema?: SchemaObject } {
  if (answer === undefined) return {};
  if ('safeParse' in answer) return { schema: jsonSchemaOf(answer) };
  return answer;
}

let routesDescribed = false;

/**
 * Turns every controller's `@ApiTags` and every route's `@ApiRoute` description into @nestjs/swagger's metadata, once,
 * before the first document is built. The decorators are applied as they would have been at class definition: to the
 * controller, and to each route method's descriptor. All are built before any is applied, and the work counts as done
 * only once all were: a description that fails to build fails this document, and the next request tries again from
 * the start, never applying a decorator twice.
 */
function describeRoutes(app: NestFastifyApplication, swagger: Swagger): void {
  if (routesDescribed) return;
  const controllers = new Set<abstract new (...args: never[]) => unknown>();
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) if (wrapper.metatype) controllers.add(wrapper.metatype as abstract new (...args: never[]) => unknown);
  }
  const applications: Array<() => void> = [];
  for (const controller of controllers) {
    const tags = Reflect.getMetadata(API_TAGS, controller) as string[] | undefined;
    if (tags) {
      const tagging = swagger.ApiTags(...tags);
      applications.push(() => tagging(controller));
    }
    const prototype = controller.prototype as object;
    for (const name of Object.getOwnPropertyNames(prototype)) {
      const descriptor = Object.getOwnPropertyDescriptor(prototype, name);
      const options = typeof descriptor?.value === 'function' ? (Reflect.getMetadata(API_ROUTE_OPTIONS, descriptor.value) as ApiRouteOptions | undefined) : undefined;
      if (!descriptor || !options) continue;
      const decorators = openApiDecoratorsOf(options, swagger);
      applications.push(() => {
        for (const decorator of decorators) decorator(prototype, name, descriptor);
      });
    }
  }
  for (const apply of applications) apply();
  routesDescribed = true;
}

const PLATFORM_PATHS = /^\/(health|metrics)(\/|$)/;

async function openApiDocumentOf(app: NestFastifyApplication, publicUrl: string): Promise<OpenAPIObject> {
  const swagger = await loadSwagger();
  describeRoutes(app, swagger);
  const config = new swagger.DocumentBuilder()
    .setTitle('Homing API')
    .setDescription('Lost-and-found with QR tags. Errors are `{response_code, message, validation?}`.')
    .setVersion('1')
    .setLicense('Proprietary', `${publicUrl}/about`)
    .addServer(publicUrl)
    // An access token from a log-in (`{token}`), sent as `Authorization: Bearer <token>`.
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' })
    .addGlobalResponse(describe(503, 'A service is down; retry after Retry-After seconds'))
    .addGlobalResponse(describe(504, 'A service did not answer in time'))
    .build();
  const document = swagger.SwaggerModule.createDocument(app, config);
  // The platform's /health and /metrics are for the orchestrator and Prometheus, not callers of the API. Left out here
  // rather than marked with @nestjs/swagger's decorator, which would load that package in every service.
  for (const path of Object.keys(document.paths)) if (PLATFORM_PATHS.test(path)) delete document.paths[path];
  return document;
}

const DOCS_PATH = '/api/docs';

// Swagger UI's own page, pointed at this API's document. Its scripts are files, so the Content-Security-Policy's
// `script-src 'self'` holds.
const SWAGGER_UI_PAGE = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Homing API</title>
<link rel="stylesheet" href="${DOCS_PATH}/swagger-ui.css">
<link rel="icon" type="image/png" href="${DOCS_PATH}/favicon-32x32.png" sizes="32x32">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${DOCS_PATH}/swagger-ui-bundle.js"></script>
<script src="${DOCS_PATH}/swagger-ui-standalone-preset.js"></script>
<script src="${DOCS_PATH}/swagger-ui-init.js"></script>
</body>
</html>
`;

const SWAGGER_UI_INIT = `window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: '${DOCS_PATH}/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    plugins: [SwaggerUIBundle.plugins.DownloadUrl],
    layout: 'StandaloneLayout',
  });
};
`;

/**
 * Serves the OpenAPI document generated from the routes at /api/docs/openapi.json, and Swagger UI at /api/docs (its
 * files from swagger-ui-dist). The document is built at the first request for it, not at start-up, with
 * @nestjs/swagger loaded then: few replicas are ever asked for it. A route whose metadata cannot be described fails
 * that request (the contract tests ask for the document), not the start.
 */
export function setUpOpenApi(app: NestFastifyApplication, publicUrl: string): void {
  let document: Promise<string> | undefined;
  const fastify = app.getHttpAdapter().getInstance();
  fastify.get(`${DOCS_PATH}/openapi.json`, async (_request, reply: FastifyReply) => {
    document ??= openApiDocumentOf(app, publicUrl).then((built) => JSON.stringify(built));
    // A failed build is tried again by the next request rather than kept.
    const json = await document.catch((error: unknown) => {
      document = undefined;
      throw error;
    });
    return reply.type('application/json; charset=utf-8').send(json);
  });
  // Also in place of swagger-ui-dist's own index.html and initializer, which show its demo API.
  const page = (_request: unknown, reply: FastifyReply) => reply.type('text/html; charset=utf-8').send(SWAGGER_UI_PAGE);
  for (const path of [DOCS_PATH, `${DOCS_PATH}/`, `${DOCS_PATH}/index.html`]) fastify.get(path, page);
  const init = (_request: unknown, reply: FastifyReply) => reply.type('application/javascript; charset=utf-8').send(SWAGGER_UI_INIT);
  for (const path of [`${DOCS_PATH}/swagger-ui-init.js`, `${DOCS_PATH}/swagger-initializer.js`]) fastify.get(path, init);
  // swagger-ui-dist's own path, without loading its 1 MB bundle (its index requires it).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const swaggerUiFiles = (require('swagger-ui-dist/absolute-path.js') as () => string)();
  app.useStaticAssets({ root: swaggerUiFiles, prefix: `${DOCS_PATH}/`, decorateReply: false });
}
