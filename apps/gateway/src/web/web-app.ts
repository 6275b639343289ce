import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import fastifyStatic from '@fastify/static';
import { isWebPagePath } from '@homing/contracts';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { pathOfTarget } from '../http/security-headers';

// Never cached, so a deploy reaches every browser at once; hashed assets under /assets are cached for a year.
const NO_CACHE = new Set(['index.html', 'found.html', 'sw.js']);
const NOT_PAGES = /^\/(api|qr|health|metrics)(\/|$)/;
const SERVER_FILES = /^\/server(\/|$)/;
// The finder page comes with its text and form already in the HTML (the web build's found.html).
const FINDER_PAGES = /^\/found\//;

/**
 * Serves the built web app and answers page paths with index.html (the app routes them), or /found/* with found.html,
 * the finder page prerendered (`/found/{code}` itself is rendered per request by FinderPageHttpController when the
 * build has its server entry). A path that is no page of the app (`isWebPagePath`) gets index.html too, whose app shows
 * "Page not found", but with status 404: a search engine, a link checker or a monitor learns that nothing is there.
 */
export class WebAppFallback {
  constructor(
    private readonly root: string,
    private readonly hasFinderPage = existsSync(resolve(root, 'found.html')),
  ) {}

  static async register(app: NestFastifyApplication, webDist: string): Promise<WebAppFallback> {
    const root = resolve(webDist);
    if (!existsSync(resolve(root, 'index.html'))) throw new Error(`WEB_DIST=${webDist} holds no index.html; build the web app first`);
    await app.register(fastifyStatic, {
      root,
      prefix: '/',
      wildcard: false,
      index: false,
      // The server-rendered finder page's code and template are the gateway's to run, not files for browsers.
      allowedPath: (pathName) => !SERVER_FILES.test(pathName),
      setHeaders(res, path) {
        const file = path.slice(path.lastIndexOf('/') + 1);
        if (NO_CACHE.has(file)) res.header('Cache-Control', 'no-cache');
        else if (path.includes('/assets/')) res.header('Cache-Control', 'public, max-age=31536000, immutable');
      },
    });
    return new WebAppFallback(root);
  }

  serves(request: FastifyRequest): boolean {
    return (request.method === 'GET' || request.method === 'HEAD') && !NOT_PAGES.test(pathOfTarget(request.url));
  }

  sendIndex(reply: FastifyReply, path = '/'): Promise<void> | FastifyReply {
    const page = this.hasFinderPage && FINDER_PAGES.test(path) ? 'found.html' : 'index.html';
    // @fastify/static keeps a status other than 200.
    if (!isWebPagePath(path)) void reply.code(404);
    return reply.header('Cache-Control', 'no-cache').type('text/html; charset=utf-8').sendFile(page, this.root);
  }
}
