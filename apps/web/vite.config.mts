import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

// Everything the gateway answers during development; all other paths are pages of this app.
// Regexes rather than prefixes, so a page such as /languages stays with the app.
const backend = { target: 'http://localhost:8080' };

export default defineConfig({
  root: import.meta.dirname,
  plugins: [react()],
  build: {
    outDir: '../../dist/apps/web',
    emptyOutDir: true,
  },
  server: {
    proxy: {
      '^/api/': backend,
      '^/qr/': backend,
      '^/lang(?:[/?]|$)': backend,
    },
  },
  test: {
    environment: 'jsdom',
    setupFiles: ['src/testing/setup-tests.ts'],
    include: ['src/**/*.spec.{ts,tsx}'],
  },
});
