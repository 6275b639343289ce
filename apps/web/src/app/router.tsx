import { createBrowserRouter, type RouteObject } from 'react-router';

import { loadChunk } from '../lib/load-chunk';
import { LandingPage } from './routes/landing';
import { NotFoundPage } from './routes/not-found';
import { RootRoute } from './routes/root';
import { RootRouteError, RouteError } from './routes/route-error';

// Every page but the landing page loads on demand, so a finder's phone downloads only the finder page's code.
// Each module exports its page as `Component`.
const page = (load: () => Promise<{ Component: RouteObject['Component'] }>) => () => loadChunk(load).then(({ Component }) => ({ Component }));

export const routes: RouteObject[] = [
  {
    path: '/',
    Component: RootRoute,
    ErrorBoundary: RootRouteError,
    // While the first page's code loads: the same blank page the HTML shows, no layout to shift.
    HydrateFallback: () => null,
    children: [
      {
        ErrorBoundary: RouteError,
        children: [
          { index: true, Component: LandingPage },
          { path: 'about', lazy: page(() => import('./routes/website/about')) },
          { path: 'rewards', lazy: page(() => import('./routes/website/rewards')) },
          { path: 'contact', lazy: page(() => import('./routes/website/contact')) },
          { path: 'activate/:code', lazy: page(() => import('./routes/activate')) },
          { path: 'found/:code', lazy: page(() => import('./routes/found/found')) },
          { path: 'found/:code/preview', lazy: page(() => import('./routes/found/finder-preview')) },
          { path: 'register', lazy: page(() => import('./routes/auth/register')) },
          { path: 'login', lazy: page(() => import('./routes/auth/login')) },
          { path: 'login/email', lazy: page(() => import('./routes/auth/login-email')) },
          { path: 'login/code', lazy: page(() => import('./routes/auth/login-code')) },
          { path: 'login/:lang', lazy: page(() => import('./routes/auth/login')) },
          { path: 'forgot-password', lazy: page(() => import('./routes/auth/forgot-password')) },
          { path: 'reset-password/:token', lazy: page(() => import('./routes/auth/set-password')) },
          { path: 'set-password/:token', lazy: page(() => import('./routes/auth/set-password')) },
          { path: 'account', lazy: page(() => import('./routes/auth/account')) },
          { path: 'items', lazy: page(() => import('./routes/items/my-items')) },
          { path: 'add-item', lazy: page(() => import('./routes/items/item-editor')) },
          { path: 'item/:code', lazy: page(() => import('./routes/items/item-editor')) },
          { path: 'item/:code/print', lazy: page(() => import('./routes/items/print-qr')) },
          { path: 'invite/:token', lazy: page(() => import('./routes/invite')) },
          { path: 'admin/tag-batches', lazy: page(() => import('./routes/admin/tag-batches')) },
          { path: 'not-found', Component: NotFoundPage },
          { path: '*', Component: NotFoundPage },
        ],
      },
    ],
  },
];

export function createAppRouter() {
  return createBrowserRouter(routes);
}
