import { render } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router';

import { AppProvider } from '../app/provider';
import { routes } from '../app/router';
import { createI18n } from '../i18n/i18n';

/** Renders the whole app at a path, with the same providers and routes as in the browser. */
export function renderApp(path = '/') {
  const i18n = createI18n();
  const router = createMemoryRouter(routes, { initialEntries: [path] });
  return { i18n, router, ...render(<AppProvider i18n={i18n}><RouterProvider router={router} /></AppProvider>) };
}
