import { WEB_PAGE_PATHS } from '@homing/contracts';
import { NginxConfFile } from 'nginx-conf';
import { join } from 'node:path';
import { root } from './support';

type Node = NginxConfFile['nginx'];
interface Directive {
  _value: string;
  _name: string;
  [child: string]: unknown;
}

const children = (node: unknown, name: string): Directive[] => {
  const value = (node as Record<string, unknown> | undefined)?.[name];
  return value === undefined ? [] : ((Array.isArray(value) ? value : [value]) as Directive[]);
};

function loadConfig(path: string): Promise<Node> {
  return new Promise((resolve, reject) =>
    NginxConfFile.create(path, (error, file) => (error || !file ? reject(error ?? new Error(`cannot read ${path}`)) : resolve(file.nginx))),
  );
}

/**
 * The location nginx picks for a URI: regular expressions in order win over the longest prefix, unless that
 * prefix is `^~` or `=`. The config's own regexes, evaluated by JavaScript (PCRE and JS agree on these).
 */
function locate(server: Directive, uri: string): Directive | undefined {
  const locations = children(server, 'location').map((location) => {
    const [first, ...rest] = location._value.trim().split(/\s+/);
    const modifier = ['=', '~', '~*', '^~'].includes(first) ? first : '';
    return { location, modifier, path: modifier ? rest.join(' ') : first };
  });
  const exact = locations.find((candidate) => candidate.modifier === '=' && candidate.path === uri);
  if (exact) return exact.location;
  const prefix = locations
    .filter((candidate) => (candidate.modifier === '' || candidate.modifier === '^~') && uri.startsWith(candidate.path))
    .sort((a, b) => b.path.length - a.path.length)[0];
  if (prefix?.modifier === '^~') return prefix.location;
  const regex = locations.find((candidate) => (candidate.modifier === '~' || candidate.modifier === '~*') && new RegExp(candidate.path, candidate.modifier === '~*' ? 'i' : '').test(uri));
  return regex?.location ?? prefix?.location;
}

describe('deploy/nginx/web.conf', () => {
  let config: Node;
  let server: Directive;
  beforeAll(async () => {
    config = await loadConfig(join(root, 'deploy/nginx/web.conf'));
    [server] = children(config, 'server');
  });
  const value = (node: unknown, name: string) => children(node, name)[0]?._value;
  const proxiesToGateway = (uri: string) => value(locate(server, uri), 'proxy_pass') === 'http://gateway:8080';

  it('listens on the port the web image and its Kubernetes Service expect', () => {
    expect(value(server, 'listen')).toBe('8080');
  });

  it('serves index.html for every page of the app, found.html for the finder page’s preview, but 404s a missing asset', () => {
    // Each page of the app as the gateway knows them (a parameter filled in), but the finder page's own, proxied below.
    const pages = WEB_PAGE_PATHS.filter((path) => !path.startsWith('/found/')).map((path) => path.replace(/:\w+/g, 'ABCD-EFGH-JKLM-NPQR'));
    for (const uri of [...pages, '/Items', '/account/', '/login?ec=ABCD-EFGH-JKLM-NPQR']) {
      const path = uri.split('?')[0];
      expect({ uri, tryFiles: value(locate(server, path), 'try_files') }).toEqual({ uri, tryFiles: '$uri /index.html' });
    }
    expect(value(locate(server, '/found/ABCD-EFGH-JKLM-NPQR/preview'), 'try_files')).toBe('$uri /found.html');
    // Any other path that is no file: the app's HTML (its "Page not found") with status 404.
    for (const uri of ['/found', '/found/', '/languages', '/nope', '/favicon.ico', '/items/x', '/found/ABCD-EFGH-JKLM-NPQR/preview/x']) {
      const location = locate(server, uri);
      expect({ uri, tryFiles: value(location, 'try_files'), errorPage: value(location, 'error_page') }).toEqual({ uri, tryFiles: '$uri =404', errorPage: '404 /index.html' });
    }
    // The app's own files are files: index.html found by that fallback too.
    expect(value(locate(server, '/index.html'), 'try_files')).toBe('$uri =404');
    expect(value(locate(server, '/assets/index-3f2a.js'), 'try_files')).toBe('$uri =404');
    // The gateway's server entry of the finder page is in the build, but never served.
    expect(value(locate(server, '/server/finder-page.mjs'), 'return')).toBe('404');
  });

  it('proxies /api/, /qr/, /lang and the finder page (/found/{code}) to the gateway, and nothing else', () => {
    for (const uri of ['/api/v1/items/X', '/qr/ABCD-EFGH-JKLM-NPQR', '/lang', '/lang/nl', '/found/ABCD-EFGH-JKLM-NPQR', '/found/ABCD-EFGH-JKLM-NPQR/']) {
      expect({ uri, proxied: proxiesToGateway(uri) }).toEqual({ uri, proxied: true });
    }
    for (const uri of ['/', '/languages', '/apidocs', '/assets/a.js', '/sw.js', '/found/ABCD-EFGH-JKLM-NPQR/preview']) {
      expect({ uri, proxied: proxiesToGateway(uri) }).toEqual({ uri, proxied: false });
    }
  });

  it('never caches index.html, found.html or sw.js, and caches hashed assets for good', () => {
    const cacheHeader = children(server, 'add_header').find((directive) => directive._value.startsWith('Cache-Control '));
    const variable = cacheHeader?._value.split(/\s+/)[1];
    const map = children(config, 'map').find((candidate) => candidate._value.split(/\s+/)[1] === variable);
    expect(map?._value.split(/\s+/)[0]).toBe('$uri');
    const lookup = (uri: string) => {
      const entry = Object.keys(map ?? {}).find((key) => key === uri) ?? Object.keys(map ?? {}).find((key) => key.startsWith('~') && new RegExp(key.slice(1)).test(uri));
      return entry ? value(map, entry)?.replace(/^"|"$/g, '') : undefined;
    };
    expect(lookup('/index.html')).toBe('no-cache');
    expect(lookup('/found.html')).toBe('no-cache');
    expect(lookup('/sw.js')).toBe('no-cache');
    expect(lookup('/assets/index-3f2a.js')).toMatch(/max-age=31536000.*immutable/);
  });

  it('sends the security headers on every response', () => {
    const headers = Object.fromEntries(
      children(server, 'add_header').map((directive) => {
        const [name, ...rest] = directive._value.split(/\s+(?=(?:[^"]*"[^"]*")*[^"]*$)/);
        return [name, rest.map((part) => part.replace(/^"|"$/g, ''))];
      }),
    );
    expect(headers['X-Content-Type-Options']).toEqual(['nosniff', 'always']);
    // No referrer, but on the gateway's finder page (same-origin, so its form posts carry their Origin).
    const [policy, always] = headers['Referrer-Policy'] ?? [];
    expect(always).toBe('always');
    const policies = children(config, 'map').find((candidate) => candidate._value.split(/\s+/)[1] === policy);
    expect(policies?._value.split(/\s+/)[0]).toBe('$uri');
    const policyOf = (uri: string) => {
      const entry = Object.keys(policies ?? {}).find((key) => key.startsWith('~') && new RegExp(key.slice(1)).test(uri)) ?? 'default';
      return value(policies, entry)?.replace(/^"|"$/g, '');
    };
    expect(policyOf('/found/ABCD-EFGH-JKLM-NPQR')).toBe('same-origin');
    for (const uri of ['/', '/found/ABCD-EFGH-JKLM-NPQR/preview', '/api/v1/items/X', '/login']) expect({ uri, policy: policyOf(uri) }).toEqual({ uri, policy: 'no-referrer' });
    expect(headers['Content-Security-Policy']).toEqual(["frame-ancestors 'none'", 'always']);
    // One add_header inside a location replaces every server-level one for that location.
    expect(children(server, 'location').filter((location) => children(location, 'add_header').length > 0).map((location) => location._value)).toEqual([]);
  });
});
