import { createBrowserRouter, type RouteObject } from 'react-router';

import { LandingPage } from './routes/landing';
import { NotFoundPage } from './routes/not-found';
import { RootRoute } from './routes/root';
import { RootRouteError, RouteError } from './routes/route-error';

// New pages go into the innermost children. Larger ones can load on demand with
// `lazy: () => import('./routes/<page>')` exporting `Component`.
export const routes: RouteObject[] = [
  {
    path: '/',
    Component: RootRoute,
    ErrorBoundary: RootRouteError,
    children: [
      {
        ErrorBoundary: RouteError,
        children: [
          { index: true, Component: LandingPage },
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
