import './styles.css';

import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router';

import { AppProvider } from './app/provider';
import { createAppRouter } from './app/router';
import { createI18n } from './i18n/i18n';

const container = document.getElementById('root');
if (!container) throw new Error('index.html must contain an element with id "root"');

const i18n = createI18n();
const router = createAppRouter();

createRoot(container).render(
  <StrictMode>
    <AppProvider i18n={i18n}>
      <RouterProvider router={router} />
    </AppProvider>
  </StrictMode>,
);
