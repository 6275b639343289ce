import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import type { OpenAPIObject, SchemaObject } from '@nestjs/swagger';
import { z } from 'zod';

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

export const errorResponses = {
  400: describe(400, 'Malformed request: not JSON, not an object, or unknown fields'),
  401: describe(401, 'Not authenticated'),
  403: describe(403, 'Forbidden: the caller may not do this'),
  404: describe(404, 'Not found'),
  409: describe(409, 'Conflict with the current state (e.g. FINDER_LEFT: the finder deleted the conversation)'),
  422: describe(422, 'Validation error, with a field → rule map'),
  429: describe(429, 'Rate limited; retry after Retry-After seconds'),
};

const PLATFORM_PATHS = /^\/(health|metrics)(\/|$)/;

/**
 * Serves the OpenAPI document generated from the routes at /api/docs (UI) and /api/docs/openapi.json. Built at the
 * first request for it, not at start-up: walking every route's metadata was about 5 % of the gateway's start (B8),
 * for a document few replicas are ever asked for. A route whose metadata cannot be described fails that request
 * (the contract tests ask for the document), not the start.
 */
export function setUpOpenApi(app: NestFastifyApplication, publicUrl: string): void {
  SwaggerModule.setup('api/docs', app, () => openApiDocumentOf(app, publicUrl), { jsonDocumentUrl: 'api/docs/openapi.json', raw: ['json'] });
}

function openApiDocumentOf(app: NestFastifyApplication, publicUrl: string): OpenAPIObject {
  const config = new DocumentBuilder()
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
  const document = SwaggerModule.createDocument(app, config);
  // The platform's /health and /metrics are for the orchestrator and Prometheus, not callers of the API. Left out here
  // rather than marked with @nestjs/swagger's decorator, which would load that package in every service (about 8 MB
  // and 40 ms of start-up each, B8) for a document only the gateway builds.
  for (const path of Object.keys(document.paths)) if (PLATFORM_PATHS.test(path)) delete document.paths[path];
  return document;
}
