/**
 * The web app's pages (apps/web/src/app/router.tsx), as its router matches them: a `:name` segment is any one segment.
 * The gateway answers any other page path with the app and status 404 (the app shows its "Page not found"), so that a
 * search engine, a link checker or a monitor learns the page does not exist; nginx's config (deploy/nginx/web.conf)
 * does the same. `router.spec.ts` holds the router to exactly these paths.
 */
export const WEB_PAGE_PATHS = [
  '/',
  '/about',
  '/rewards',
  '/contact',
  '/activate/:code',
  '/found/:code',
  '/found/:code/preview',
  '/register',
  '/login',
  '/login/email',
  '/login/code',
  '/login/:lang',
  '/forgot-password',
  '/reset-password/:token',
  '/set-password/:token',
  '/account',
  '/items',
  '/add-item',
  '/item/:code',
  '/item/:code/print',
  '/invite/:token',
  '/admin/tag-batches',
  '/not-found',
] as const;

const segmentPattern = (segment: string) => (segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&'));

// One pattern for all: a trailing slash and any letter case match, as in react-router (routes are not case-sensitive).
const WEB_PAGE = new RegExp(`^(?:${WEB_PAGE_PATHS.map((path) => path.split('/').filter(Boolean).map(segmentPattern).join('/')).join('|')})/?$`, 'i');

/** Whether `target` (a URL's path, with or without its query) is one of the web app's pages. */
export function isWebPagePath(target: string): boolean {
  const query = target.indexOf('?');
  const path = query < 0 ? target : target.slice(0, query);
  return WEB_PAGE.test(path.startsWith('/') ? path.slice(1) : path);
}
