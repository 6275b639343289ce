import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import react from '@vitejs/plugin-react';
import { build, createServer, type Plugin } from 'vite';
import { VitePWA } from 'vite-plugin-pwa';
import { defineConfig } from 'vitest/config';

// Everything the gateway answers during development; all other paths are pages of this app.
// Regexes rather than prefixes, so a page such as /languages stays with the app.
const backend = { target: 'http://localhost:8080' };

// The server-rendered finder page, for the gateway (WEB_DIST): its code and the page it renders into. Never served as
// files (the gateway refuses /server/, nginx's web.conf too).
export const FINDER_PAGE_SERVER_DIR = 'server';

// The name of the finder page's own entry chunk (assets/finder-main-<hash>.js).
const FINDER_ENTRY = 'finder-main';

/**
 * Writes found.html beside index.html: the same page with the finder page's text and form rendered into its root
 * (src/prerender/finder-shell.tsx), which nginx (and the gateway without the server entry) answers for /found/*.
 * Then builds the finder page's server entry (src/prerender/finder-page.server.tsx) with Vite's SSR build into
 * server/finder-page.mjs, and its page, server/finder-page.html (index.html with its script at the end of the body and
 * nothing preloaded, an empty root).
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
        // The page the gateway renders into: without the "needs JavaScript" note, as it works without. Its script is the
        // finder page's own entry (src/finder-main.tsx), not the app's; for the same reason as the note it comes at the
        // end of the page and nothing is preloaded: on a phone's slow connection and CPU, code arriving while the page
        // was still being parsed delayed its form and its largest paint.
        const entryScript = /\s*<script type="module"[^>]*><\/script>/.exec(index);
        if (!entryScript) throw new Error("index.html's entry script was not found to take out of the finder page");
        const finderEntry = Object.values(bundle).find((file) => file.type === 'chunk' && file.isEntry && file.name === FINDER_ENTRY);
        if (!finderEntry) throw new Error(`the ${FINDER_ENTRY} entry was not built`);
        const template = index
          .replace(entryScript[0], '')
          .replace(/\s*<link rel="modulepreload"[^>]*>/g, '')
          .replace(/<noscript>[\s\S]*?<\/noscript>/, '')
          .replace('</body>', `<script type="module" crossorigin src="/${finderEntry.fileName}"></script></body>`);
        await mkdir(join(dir, FINDER_PAGE_SERVER_DIR), { recursive: true });
        await writeFile(join(dir, FINDER_PAGE_SERVER_DIR, 'finder-page.html'), template);
      } finally {
        await renderer.close();
      }
      await build({
        configFile: false,
        root: import.meta.dirname,
        logLevel: 'warn',
        plugins: [react()],
        // Everything in the one file: the gateway's image has no React of its own.
        ssr: { noExternal: true, target: 'node' },
        build: {
          ssr: 'src/prerender/finder-page.server.tsx',
          outDir: join(dir, FINDER_PAGE_SERVER_DIR),
          emptyOutDir: false,
          copyPublicDir: false,
          rollupOptions: { output: { format: 'es', entryFileNames: 'finder-page.mjs' } },
        },
      });
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
      // The shell only (the pages, the entry scripts, the framework both start with, the app's TanStack Query, the styles
      // and the finder page): a finder's phone on a weak connection should not download every screen of the app in the
      // background.
      injectManifest: {
        globPatterns: ['*.{html,svg}', 'assets/{index,main}-*.{js,css}', `assets/${FINDER_ENTRY}-*.js`, 'assets/framework-*.js', 'assets/query-*.js', 'assets/rolldown-runtime-*.js', 'assets/found-*.js'],
      },
      devOptions: { enabled: false },
    }),
  ],
  build: {
    outDir: '../../dist/apps/web',
    emptyOutDir: true,
    rolldownOptions: {
      // The app (index.html) and the finder page's own entry, which the gateway's finder page loads (src/finder-main.tsx).
      input: { index: join(import.meta.dirname, 'index.html'), [FINDER_ENTRY]: join(import.meta.dirname, 'src/finder-main.tsx') },
      output: {
        // What both entries start with, in one file of a known name (the service worker precaches it): React and the
        // texts' library. The router is the app's alone, and so is TanStack Query, in a file of its own (the finder
        // page's entry asks its queries without it: src/lib/page-queries.tsx).
        codeSplitting: {
          groups: [
            { name: 'framework', test: /[\\/]node_modules[\\/](react|react-dom|scheduler|i18next|react-i18next)[\\/]/ },
            { name: 'query', test: /[\\/]node_modules[\\/]@tanstack[\\/]/ },
          ],
        },
      },
    },
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
    // Vitest's default of one worker on two cores: with two, focus set in an effect came a tick late in a fresh-clone
    // run (share-location), and other specs assert focus the same way.
  },
});
