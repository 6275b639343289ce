import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import type { Message, PublicItem, ValidationMap } from '@homing/contracts';

// The web build's server entry for the finder page (apps/web/src/prerender/finder-page.server.tsx), loaded at run time
// from WEB_DIST: no app imports another at compile time (ARCHITECTURE §12). Its types are restated here for that
// reason; the web app's build and this gateway's e2e tests keep the two in step.

export interface FinderPageInput {
  code: string;
  language: string;
  item: PublicItem | null;
  thread?: readonly Message[] | null;
  error?: { status: number; response_code?: string; validation?: ValidationMap } | null;
  values?: { content?: string; email?: string } | null;
}

interface FinderPageModule {
  renderFinderPage(input: FinderPageInput): { root: string; title: string; language: string };
}

export const FINDER_PAGE_MODULE = 'server/finder-page.mjs';
export const FINDER_PAGE_TEMPLATE = 'server/finder-page.html';

const ROOT = '<div id="root"></div>';

// Node's own require, which webpack leaves alone, of an ES module (Node 20.19 and later, package.json's engines). Not
// import(): the bundle runs as a vm script compiled from its code cache (tools/webpack/service-launcher.js), where
// import() takes vm's loader, which Node 20 still calls experimental and warns of.
const requireAtRunTime = createRequire(__filename);

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/** Renders whole finder pages: the web build's markup in its page, with the visitor's language and the page's title. */
export class FinderPageRenderer {
  private constructor(
    private readonly module: FinderPageModule,
    private readonly template: string,
  ) {}

  /** The renderer of a web build, or null when the build has no server entry (an older build: found.html serves). */
  static async load(webDist: string): Promise<FinderPageRenderer | null> {
    const modulePath = resolve(webDist, FINDER_PAGE_MODULE);
    const templatePath = resolve(webDist, FINDER_PAGE_TEMPLATE);
    if (!existsSync(modulePath) || !existsSync(templatePath)) return null;
    const module = requireAtRunTime(modulePath) as Partial<FinderPageModule>;
    if (typeof module.renderFinderPage !== 'function') throw new Error(`${modulePath} exports no renderFinderPage`);
    return FinderPageRenderer.of(module as FinderPageModule, await readFile(templatePath, 'utf8'));
  }

  static of(module: FinderPageModule, template: string): FinderPageRenderer {
    if (!template.includes(ROOT) || !/<html lang="[^"]*">/.test(template) || !/<title>[^<]*<\/title>/.test(template)) {
      throw new Error(`the finder page's template has no ${ROOT}, <html lang> or <title> to render into`);
    }
    return new FinderPageRenderer(module, template);
  }

  render(input: FinderPageInput): string {
    const page = this.module.renderFinderPage(input);
    // Functions as replacements: a `$` in the markup (a message) must stay as it is.
    return this.template
      .replace(/<html lang="[^"]*">/, () => `<html lang="${escapeHtml(page.language)}">`)
      .replace(/<title>[^<]*<\/title>/, () => `<title>${escapeHtml(page.title)}</title>`)
      .replace(ROOT, () => `<div id="root">${page.root}</div>`);
  }
}
