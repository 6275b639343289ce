import { runService } from '@homing/platform';
import { AppModule } from './app.module';
import { loadGatewayConfig, type GatewayConfig } from './config/gateway.config';
import { applyHttpContract, BODY_LIMIT_BYTES, MAX_PARAM_LENGTH } from './http/http-contract';
import { answerClientError } from './http/client-errors';
import { INTERNAL_ERROR_ANSWER, sendHttpError, toHttpError } from './http/http-error';
import { setUpOpenApi } from './http/openapi';
import { passMultipartBodiesUnread } from './photos/photo-upload';
import { SECURITY_HEADERS } from './http/security-headers';
import { WebAppFallback } from './web/web-app';
import { rememberingTrust } from './http/trusted-proxies';

export function main(): Promise<void> {
  return runService<GatewayConfig>({
    name: 'gateway',
    loadConfig: () => loadGatewayConfig(),
    port: (config) => config.PORT,
    module: (config) => AppModule.forConfig(config),
    fastify: {
      bodyLimit: BODY_LIMIT_BYTES,
      // Long enough that any typed code reaches the route (and gets the one 404 of unknown codes).
      routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
      // Errors of Fastify's router (bad URL encoding, over-long parameters) never reach Nest or the onSend hooks:
      // answer them here, security headers included.
      frameworkErrors: (error, _request, reply) => sendHttpError(reply.headers(SECURITY_HEADERS), toHttpError(error) ?? INTERNAL_ERROR_ANSWER),
      // Requests Node's parser refuses (over-long headers or URL) never reach Fastify's handlers either.
      clientErrorHandler: answerClientError,
      // Long-lived responses (server-sent events) must not hold a shutdown past its deadline.
      forceCloseConnections: true,
    },
    // The client address (rate limits) comes from X-Forwarded-For only when the connection is from a trusted proxy.
    fastifyFromConfig: (config) => ({ trustProxy: config.TRUSTED_PROXIES.length > 0 ? rememberingTrust(config.TRUSTED_PROXIES) : false }),
    async configureApp(app, config) {
      const webApp = config.WEB_DIST ? await WebAppFallback.register(app, config.WEB_DIST) : undefined;
      applyHttpContract(app, webApp);
      // Multipart bodies are read only by the route that takes them (photo uploads), with its own limits.
      passMultipartBodiesUnread(app.getHttpAdapter().getInstance());
      setUpOpenApi(app, config.PUBLIC_URL);
    },
  });
}
