import { fireEvent, render, screen } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { describe, expect, it } from 'vitest';

import { createI18n } from '../i18n/i18n';
import { ApiClient } from '../lib/api-client';
import { ChunkLoadError } from '../lib/load-chunk';
import { renderApp } from '../testing/render-app';
import { AppProvider } from './provider';
import { RootRoute } from './routes/root';
import { RouteError } from './routes/route-error';

describe('the web shell', () => {
  it('shows the landing page in English by default', async () => {
    renderApp('/');
    expect(await screen.findByRole('heading', { level: 1, name: 'Homing' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Log in' })).toHaveAttribute('href', '/login');
  });

  it('switches to Dutch from the language selector and remembers the choice', async () => {
    renderApp('/');
    fireEvent.change(await screen.findByLabelText('Language'), { target: { value: 'nl' } });
    expect(await screen.findByRole('link', { name: 'Inloggen' })).toBeInTheDocument();
    expect(localStorage.getItem('lang')).toBe('nl');
    expect(document.documentElement.lang).toBe('nl');
  });

  it('lists Italian without letting anyone choose it', async () => {
    renderApp('/');
    expect(await screen.findByRole('option', { name: 'Italiano' })).toBeDisabled();
  });

  it('answers an unknown page with the not-found page', async () => {
    renderApp('/no/such/page');
    expect(await screen.findByRole('heading', { name: 'Page not found' })).toBeInTheDocument();
  });

  it('offers a reload when a page’s code cannot be loaded, keeping the navigation', async () => {
    const router = createMemoryRouter([
      {
        path: '/',
        Component: RootRoute,
        children: [{ ErrorBoundary: RouteError, children: [{ index: true, lazy: () => Promise.reject(new ChunkLoadError(new Error('offline'))) }] }],
      },
    ]);
    render(
      <AppProvider i18n={createI18n()} api={new ApiClient({ fetch: () => Promise.reject(new TypeError('offline')) })}>
        <RouterProvider router={router} />
      </AppProvider>,
    );
    expect(await screen.findByText('Part of the page could not be loaded. Check your connection and reload the page.')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Reload the page' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Log in' })).toBeInTheDocument();
  });
});
