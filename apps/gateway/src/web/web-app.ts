import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';

// Never cached, so a deploy reaches every browser at once; hashed assets under /assets are cached for a year.
const NO_CACHE = new Set(['index.html', 'sw.js']);
const NOT_PAGES = /^\/(api|qr|health|metrics)(\/|$)/;

/** Serves the built web app and answers unknown page paths with index.html (the app routes them). */
export class WebAppFallback {
  constructor(private readonly root: string) {}

  static async register(app: NestFastifyApplication, webDist: string): Promise<WebAppFallback> {
    const root = resolve(webDist);
    if (!existsSync(resolve(root, 'index.html'))) throw new Error(`WEB_DIST=${webDist} holds no index.html; build the web app first`);
    await app.register(fastifyStatic, {
      root,
      prefix: '/',
      wildcard: false,
      index: false,
      setHeaders(res, path) {
        const file = path.slice(path.lastIndexOf('/') + 1);
        if (NO_CACHE.has(file)) res.header('Cache-Control', 'no-cache');
        else if (path.includes('/assets/')) res.header('Cache-Control', 'public, max-age=31536000, immutable');
      },
    });
    return new WebAppFallback(root);
  }

  serves(request: FastifyRequest): boolean {
    return (request.method === 'GET' || request.method === 'HEAD') && !NOT_PAGES.test(request.url);
  }

  sendIndex(reply: FastifyReply): Promise<void> | FastifyReply {
    return reply.header('Cache-Control', 'no-cache').type('text/html; charset=utf-8').sendFile('index.html', this.root);
  }
}
