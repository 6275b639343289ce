import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import react from '@vitejs/plugin-react';
import { createServer, type Plugin } from 'vite';
import { VitePWA } from 'vite-plugin-pwa';
import { defineConfig } from 'vitest/config';

// Everything the gateway answers during development; all other paths are pages of this app.
// Regexes rather than prefixes, so a page such as /languages stays with the app.
const backend = { target: 'http://localhost:8080' };

/**
 * Writes found.html beside index.html: the same page with the finder page's text and form rendered into its root
 * (src/prerender/finder-shell.tsx), which the gateway and nginx answer for /found/*.
 */
function prerenderFinderPage(): Plugin {
  return {
    name: 'homing:prerender-finder-page',
    apply: 'build',
    async writeBundle({ dir }, bundle) {
      if (!dir) return;
      const renderer = await createServer({
        configFile: false,
        root: import.meta.dirname,
        logLevel: 'error',
        appType: 'custom',
        server: { middlewareMode: true, hmr: false, ws: false },
        // The workspace's TypeScript libraries are compiled with the page, not loaded by Node.
        ssr: { noExternal: ['@homing/contracts'] },
      });
      try {
        const { renderFinderShell } = (await renderer.ssrLoadModule('/src/prerender/finder-shell.tsx')) as { renderFinderShell(): Promise<string> };
        const index = await readFile(join(dir, 'index.html'), 'utf8');
        if (!index.includes('<div id="root"></div>')) throw new Error('index.html has no empty <div id="root"></div> to prerender into');
        // The finder page's own code, fetched at once beside the entry rather than after it.
        const pageChunks = Object.values(bundle).filter((file) => file.type === 'chunk' && file.isDynamicEntry && file.name === 'found');
        const preloads = pageChunks.map((chunk) => `<link rel="modulepreload" crossorigin href="/${chunk.fileName}">`).join('');
        const found = index
          .replace('</head>', `${preloads}</head>`)
          .replace('<div id="root"></div>', `<div id="root">${await renderFinderShell()}</div>`)
          .replace('<title>Homing</title>', '<title>You found someone&#x27;s item · Homing</title>');
        await writeFile(join(dir, 'found.html'), found);
      } finally {
        await renderer.close();
      }
    },
  };
}

export default defineConfig({
  root: import.meta.dirname,
  plugins: [
    react(),
    prerenderFinderPage(),
    // The service worker is our own src/sw.ts; the plugin builds it and injects the list of files to precache.
    VitePWA({
      strategies: 'injectManifest',
      srcDir: 'src',
      filename: 'sw.ts',
      // Registered by the app itself (src/features/push/service-worker.ts), after the page has loaded.
      injectRegister: false,
      manifest: false,
      // The shell only (the pages, the entry script, its styles and the finder page): a finder's phone on a weak
      // connection should not download every screen of the app in the background.
      injectManifest: { globPatterns: ['*.{html,svg}', 'assets/index-*.{js,css}', 'assets/rolldown-runtime-*.js', 'assets/found-*.js'] },
      devOptions: { enabled: false },
    }),
  ],
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
    // Above Testing Library's 5 s waits (src/testing/setup-tests.ts): a page's first test compiles its module, which
    // on a machine shared with other test runs takes seconds.
    testTimeout: 15_000,
  },
});
