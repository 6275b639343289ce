import { fireEvent, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import { languageStorageKey } from '../i18n/i18n';
import { renderApp } from '../testing/render-app';

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
    expect(localStorage.getItem(languageStorageKey)).toBe('nl');
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
});
